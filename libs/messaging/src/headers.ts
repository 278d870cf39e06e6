import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { context, propagation, ROOT_CONTEXT, type Context } from '@opentelemetry/api';

/**
 * Message headers carrying the W3C trace context of the current span, so a consumer's work joins
 * the trace of whoever published or requested it. With no OpenTelemetry SDK registered this is a
 * no-op and the headers stay empty.
 */
export function traceHeaders(): MsgHdrs {
  const hdrs = natsHeaders();
  propagation.inject(context.active(), hdrs, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
  return hdrs;
}

/** The trace context a message arrived with, to run its handler in. */
export function contextFromHeaders(hdrs: MsgHdrs | undefined): Context {
  if (!hdrs) return context.active();
  return propagation.extract(context.active(), hdrs, {
    get: (carrier, key) => (carrier.has(key) ? carrier.get(key) : undefined),
    keys: (carrier) => carrier.keys(),
  });
}

/**
 * The current trace context as a plain object, for work that happens later than the code that
 * causes it (the outbox relay publishes what a request wrote): store it, then run the later work
 * with withTraceCarrier.
 */
export function traceCarrier(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `work` in the trace context a carrier holds; without one, outside any trace. */
export function withTraceCarrier<T>(carrier: Record<string, string> | undefined, work: () => T): T {
  return context.with(carrier ? propagation.extract(ROOT_CONTEXT, carrier) : ROOT_CONTEXT, work);
}

/**
 * When the caller of a request stops waiting (epoch milliseconds). A server drops a request taken
 * up after it and bounds the work it starts for one by it: under a backlog, work nobody waits for
 * any more would otherwise run anyway, and the caller's retry would queue behind it.
 */
const DEADLINE_HEADER = 'Rpc-Deadline';

export function withDeadline(hdrs: MsgHdrs, timeoutMs: number): MsgHdrs {
  hdrs.set(DEADLINE_HEADER, String(Date.now() + timeoutMs));
  return hdrs;
}

/** The deadline a request carries, if any. */
export function deadlineOf(hdrs: MsgHdrs | undefined): number | undefined {
  const value = Number(hdrs?.get(DEADLINE_HEADER));
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
