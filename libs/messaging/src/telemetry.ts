import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { Counter, Gauge, Histogram, libraryMetric } from '@pix/observability';

/**
 * NATS has no OpenTelemetry instrumentation, so its spans are made here by hand, following the
 * messaging semantic conventions: a request is a CLIENT span and its handling a SERVER span; a
 * publish is a PRODUCER span and each delivery's handling a CONSUMER span, child of the publisher.
 */
export const tracer = trace.getTracer('@pix/messaging');

export function natsAttributes(subject: string, operation: string): Record<string, string> {
  return {
    'messaging.system': 'nats',
    'messaging.destination.name': subject,
    'messaging.operation.type': operation,
  };
}

/** Ends a span as failed, keeping the error as an event. */
export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

export const natsRequestDuration = libraryMetric(
  new Histogram({
    name: 'nats_request_duration_seconds',
    help: 'NATS request/reply latency seen by the caller, by subject and outcome (ok, refused, unavailable, forbidden, error)',
    labelNames: ['subject', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [],
  }),
);

export const consumerPending = libraryMetric(
  new Gauge({
    name: 'jetstream_consumer_pending',
    help: 'Messages in the stream not yet delivered to this durable consumer (its lag)',
    labelNames: ['stream', 'consumer'] as const,
    registers: [],
  }),
);

export const consumerRedeliveries = libraryMetric(
  new Counter({
    name: 'jetstream_consumer_redeliveries_total',
    help: 'Messages this consumer received again after a nak, a timeout or a restart',
    labelNames: ['stream', 'consumer'] as const,
    registers: [],
  }),
);

export const rpcExpired = libraryMetric(
  new Counter({
    name: 'nats_request_expired_total',
    help: 'Requests dropped unanswered because their caller had stopped waiting before they were taken up',
    labelNames: ['subject'] as const,
    registers: [],
  }),
);

export const rpcAnswersDropped = libraryMetric(
  new Counter({
    name: 'nats_request_answers_dropped_total',
    help: 'Answers not sent because NATS reconnected after their request was taken: NATS would refuse them, and the caller asks again',
    labelNames: ['subject'] as const,
    registers: [],
  }),
);

export const permissionViolations = libraryMetric(
  new Counter({
    name: 'nats_permission_violations_total',
    help: 'Operations NATS refused to this service, by operation (publish, subscription) and subject: a bug or a client out of its bounds',
    labelNames: ['operation', 'subject'] as const,
    registers: [],
  }),
);
