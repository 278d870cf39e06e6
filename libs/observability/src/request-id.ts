import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';

export const REQUEST_ID_HEADER = 'x-request-id';
/** A caller's id is kept only when it is short and harmless in a log line or a header. */
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Request ids of the HTTP requests in flight, by trace id. Every span of a request shares its
 * trace id and OpenTelemetry carries the trace context through express, body parsing and NATS
 * calls, so the logger finds the request id of any line written on the request's behalf here.
 */
const inFlight = new Map<string, string>();

/** The caller's X-Request-Id when acceptable, a new one otherwise. */
export function chooseRequestId(given: string | undefined): string {
  return given !== undefined && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Ties `requestId` to the current trace until `release` is called (when the response closes). */
export function bindRequestId(requestId: string): { release: () => void } {
  const span = trace.getActiveSpan();
  const traceId = span?.spanContext().traceId;
  if (!span || !traceId || !trace.isSpanContextValid(span.spanContext())) return { release: () => undefined };
  span.setAttribute('http.request.header.x-request-id', requestId);
  inFlight.set(traceId, requestId);
  return {
    release: () => {
      if (inFlight.get(traceId) === requestId) inFlight.delete(traceId);
    },
  };
}

export function requestIdOfTrace(traceId: string | undefined): string | undefined {
  return traceId === undefined ? undefined : inFlight.get(traceId);
}
