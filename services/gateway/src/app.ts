import express, { type Express } from 'express';
import type { NatsConnection } from '@nats-io/transport-node';
import { observeHttp, type Logger } from '@pix/observability';
import { requireStore, TokenRateLimiter, type RateLimit } from './auth';
import type { AuthCache } from './auth-cache';
import { dashboardRouter } from './dashboard/routes';
import type { SessionSigner } from './dashboard/session';
import { EVENT_PATHS, eventsRouter } from './events-routes';
import { errorHandler, notFoundHandler } from './http-errors';
import { docsRouter } from './openapi';
import { paymentPageRouter } from './payment-page/routes';
import type { PaymentStatusFeed } from './payment-page/status-feed';
import { paymentsRouter } from './payments-routes';
import { qrRouter } from './qr-route';
import { SANDBOX_PATHS, sandboxRouter } from './sandbox-routes';
import type { StreamLimiter } from './sse-limits';

/** Both path forms of spec section 4 serve the same operations. */
export const PAYMENT_PATHS = ['/api-public/payments', '/public-api/v1/payments'] as const;

export function createApp(options: {
  nc: NatsConnection;
  logger: Logger;
  rpcTimeoutMs: number;
  authCache: AuthCache;
  rateLimit: RateLimit;
  /** The live status of the hosted payment pages. */
  feed: PaymentStatusFeed;
  /** The public sandbox routes are served only when the adapter runs the sandbox PSP. */
  sandbox: boolean;
  /** The caps on live streams, shared by the payment pages and the dashboards. */
  streams: StreamLimiter;
  /** The merchant's dashboard: its session signer, and where browsers reach the gateway. */
  dashboard: { signer: SessionSigner; publicBaseUrl: string };
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(options.logger));
  app.set('etag', false);
  app.set('query parser', 'simple');
  // One limiter for the API and the dashboard: a store's dashboard requests count against its token's limit.
  const rateLimiter = new TokenRateLimiter(options.rateLimit);
  const auth = requireStore(options.authCache, rateLimiter);
  const payments = paymentsRouter(options.nc, options.rpcTimeoutMs);
  for (const path of PAYMENT_PATHS) app.use(path, auth, payments);
  const events = eventsRouter(options.nc, options.rpcTimeoutMs);
  for (const path of EVENT_PATHS) app.use(path, auth, events);
  if (options.sandbox) {
    const sandbox = sandboxRouter(options.nc, options.rpcTimeoutMs);
    for (const path of SANDBOX_PATHS) app.use(path, auth, sandbox);
  }
  app.use(
    '/pay',
    paymentPageRouter({
      nc: options.nc,
      rpcTimeoutMs: options.rpcTimeoutMs,
      feed: options.feed,
      streams: options.streams,
    }),
  );
  app.use(
    '/dashboard',
    dashboardRouter({
      nc: options.nc,
      logger: options.logger,
      rpcTimeoutMs: options.rpcTimeoutMs,
      authCache: options.authCache,
      rateLimiter,
      feed: options.feed,
      streams: options.streams,
      signer: options.dashboard.signer,
      publicBaseUrl: options.dashboard.publicBaseUrl,
      sandbox: options.sandbox,
    }),
  );
  app.use('/public-api/v1/qrcodes', qrRouter(options.nc, options.rpcTimeoutMs));
  app.use('/public-api/v1', docsRouter());
  app.use(notFoundHandler);
  app.use(errorHandler(options.logger));
  return app;
}
