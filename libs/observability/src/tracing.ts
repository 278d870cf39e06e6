import { context, propagation, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Instrumentation from '@opentelemetry/instrumentation';
import type * as InstrumentationExpress from '@opentelemetry/instrumentation-express';
import type * as InstrumentationHttp from '@opentelemetry/instrumentation-http';
import type * as InstrumentationMongodb from '@opentelemetry/instrumentation-mongodb';
import type * as InstrumentationMongoose from '@opentelemetry/instrumentation-mongoose';
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/** Paths of the ops port: scrapes and probes are not requests anybody wants to trace. */
const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

let provider: NodeTracerProvider | undefined;
/** Whether OpenTelemetry's HTTP instrumentation traces this process's HTTP requests (see startTracing). */
let httpInstrumented = false;

function sdkDisabled(env: NodeJS.ProcessEnv): boolean {
  return env.OTEL_SDK_DISABLED?.toLowerCase() === 'true';
}

/**
 * True when an OTLP endpoint is configured and trace export is not switched off
 * (OTEL_TRACES_EXPORTER=none, OTEL_SDK_DISABLED=true): without one nothing is exported anywhere.
 */
export function tracingExportConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdkDisabled(env) || env.OTEL_TRACES_EXPORTER?.toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Starts OpenTelemetry tracing for this process. It must run before express, mongoose or http are
 * required, because the instrumentations patch those modules as they load: each service's
 * src/tracing.ts calls it and is the first import of its main.ts.
 *
 * The provider is always registered, so trace context flows through HTTP and NATS and every log
 * line carries trace_id/span_id; spans are recorded, and leave the process, only when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Exporter, batching (OTEL_BSP_*) and sampling
 * (OTEL_TRACES_SAMPLER) read the standard OTEL_* variables; OTEL_SERVICE_NAME overrides the name;
 * OTEL_SDK_DISABLED=true leaves tracing out altogether.
 */
export function startTracing(serviceName: string): void {
  if (provider || sdkDisabled(process.env)) return;
  const exporting = tracingExportConfigured();
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || serviceName }),
    spanProcessors: exporting ? [new BatchSpanProcessor(exporter())] : [],
    // With nowhere to send them, spans are not recorded: each still has its ids (logs carry them,
    // traceparent carries them on), but no attributes or events are built for nobody.
    ...(!exporting && { sampler: new AlwaysOffSampler() }),
  });
  provider.register();
  // Only when spans leave the process: instrumentations add spans, and patching every request,
  // middleware layer and database command costs CPU on each (a tenth of a service's time under
  // load) for spans nobody records. Without them the trace context still travels: observeHttp
  // gives each incoming request a span of its own (ids only), traceContextHeaders() goes on
  // outgoing requests, and NATS messages carry it in their headers.
  httpInstrumented = exporting;
  if (exporting) instrument(provider);
}

/*
 * The exporter and the instrumentations are loaded only when spans are exported: they are a third
 * of what a service loads at start, and a replica restarted on a busy machine waits for every
 * module it loads before it can answer.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
function exporter(): SpanExporter {
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  return new OTLPTraceExporter();
}

function instrument(tracerProvider: NodeTracerProvider): void {
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof Instrumentation;
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof InstrumentationHttp;
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof InstrumentationExpress;
  const { MongooseInstrumentation } =
    require('@opentelemetry/instrumentation-mongoose') as typeof InstrumentationMongoose;
  const { MongoDBInstrumentation } = require('@opentelemetry/instrumentation-mongodb') as typeof InstrumentationMongodb;
  registerInstrumentations({
    tracerProvider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => OPS_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
      }),
      new ExpressInstrumentation(),
      // Pollers (outbox relay, deadlines) query all the time; only queries inside a traced
      // request or message are worth a span. No query values reach a span (they hold e-mails):
      // mongoose records no statement, the driver's are scrubbed (enhancedDatabaseReporting off).
      new MongooseInstrumentation({ requireParentSpan: true }),
      new MongoDBInstrumentation({ requireParentSpan: true }),
    ],
  });
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** True when OpenTelemetry's HTTP instrumentation gives every incoming and outgoing request a span. */
export function httpRequestsInstrumented(): boolean {
  return httpInstrumented;
}

/**
 * The W3C trace context of the current span as HTTP headers (traceparent), for an outgoing request:
 * the receiver (a merchant's endpoint, the PSP) can join its trace. When the HTTP instrumentation
 * runs, it sets the same header to its own client span.
 */
export function traceContextHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Sends the spans still buffered; part of a graceful shutdown. */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown();
}

/** The trace and span of the current context, as log fields (empty outside any span). */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
