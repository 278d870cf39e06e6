import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Request, RequestHandler, Response, NextFunction } from 'express';
import { Counter, Histogram } from 'prom-client';
import type { Logger } from 'pino';
import { libraryMetric } from './metrics';
import { bindRequestId, chooseRequestId, REQUEST_ID_HEADER } from './request-id';
import { httpRequestsInstrumented } from './tracing';

const tracer = trace.getTracer('@pix/observability');

const labelNames = ['method', 'route', 'status_code'] as const;

const requestsTotal = libraryMetric(
  new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, matched route pattern and status code',
    labelNames,
    registers: [],
  }),
);

const requestDuration = libraryMetric(
  new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, matched route pattern and status code',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [],
  }),
);

/**
 * Records the route pattern (`/api-public/payments/:id`, never a raw id) at the moment express
 * matches it. Read later, `req.baseUrl` may already be reset (an error travels back out of the
 * router before the response ends), so the pattern is captured when express assigns `req.route`.
 */
function captureRoute(req: Request): () => string {
  let matched: string | undefined;
  let current: unknown = undefined;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (route: { path?: unknown } | undefined) => {
      current = route;
      if (typeof route?.path === 'string') matched = `${req.baseUrl}${route.path === '/' ? '' : route.path}` || '/';
    },
  });
  // A router's middleware (auth) may answer before any route matches: its mount path is a pattern too.
  return () => matched ?? (req.baseUrl || 'unmatched');
}

/**
 * The observability of an express app, mounted first: a request id (the caller's X-Request-Id or
 * a new one, echoed in the response and attached to every log line of the request), RED metrics
 * by route pattern and one access log line per request.
 */
export function observeHttp(logger: Logger): RequestHandler {
  const observe = (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    const requestId = chooseRequestId(req.get(REQUEST_ID_HEADER));
    res.setHeader('X-Request-Id', requestId);
    const binding = bindRequestId(requestId);
    const route = captureRoute(req);
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const labels = { method: req.method, route: route(), status_code: String(res.statusCode) };
      requestsTotal.inc(labels);
      requestDuration.observe(labels, seconds);
      logger.info(
        {
          // The path only: a query string may carry what must not be logged (an e-mail, a token).
          req: { method: req.method, path: req.originalUrl.split('?')[0], headers: req.headers },
          route: labels.route,
          statusCode: res.statusCode,
          durationMs: Math.round(seconds * 1000),
          request_id: requestId,
        },
        'http request',
      );
    });
    res.once('close', binding.release);
    next();
  };
  return (req, res, next) => {
    if (httpRequestsInstrumented()) return observe(req, res, next);
    // Without the HTTP instrumentation, a span of the request's own (its ids only: nothing is
    // recorded without an exporter) carries the caller's trace context, or a new one, through
    // the request: its log lines and the messages it sends share one trace.
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    tracer.startActiveSpan(`${req.method}`, { kind: SpanKind.SERVER }, parent, (span) => {
      res.once('close', () => span.end());
      observe(req, res, next);
    });
  };
}
