import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { SpanKind, type Span } from '@opentelemetry/api';
import { ErrorMessages, type RpcError } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import type { z } from 'zod';
import { contextFromHeaders, deadlineOf, traceHeaders, withDeadline } from './headers';
import { failSpan, natsAttributes, natsRequestDuration, rpcExpired, tracer } from './telemetry';
import { isTransient } from './transient';

/** A refusal that travels back to the caller with an HTTP-like status and a contract message. */
export class RpcFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

type Reply<T> = { ok: true; data: T } | { ok: false; error: RpcError };

/** A served subject. drain() stops taking requests and resolves once every taken one is answered. */
export interface RpcServer {
  drain(): Promise<void>;
}

/**
 * Serves one request/reply subject in a queue group: every replica subscribes, each request is
 * answered once. Bad requests and RpcFailures are answered; anything else is logged and answered
 * as an internal error, never left to time out silently. A request whose caller stopped waiting
 * before it was taken up is dropped (see withDeadline); the handler gets the time left as a signal
 * (callerGone) to bound what it starts.
 */
export function serveRpc<S extends z.ZodType, R>(
  nc: NatsConnection,
  options: { subject: string; queue: string; schema: S; logger: Logger },
  handler: (request: z.infer<S>, msg: Msg) => Promise<R>,
): RpcServer {
  const { subject, queue, schema, logger } = options;
  // Answers under way: a graceful shutdown waits for them, so a request taken is never left unanswered.
  const inFlight = new Set<Promise<void>>();
  const subscription = nc.subscribe(subject, {
    queue,
    callback: (err, msg) => {
      if (err) {
        logger.error({ err, subject }, 'rpc subscription error');
        return;
      }
      // The handler's span is a child of the caller's, whose context travels in the headers.
      const answering = tracer
        .startActiveSpan(
          `${subject} process`,
          { kind: SpanKind.SERVER, attributes: natsAttributes(subject, 'process') },
          contextFromHeaders(msg.headers),
          (span) => answer(msg, span).finally(() => span.end()),
        )
        .catch((error: unknown) => logger.error({ err: error, subject }, 'rpc reply failed'));
      inFlight.add(answering);
      void answering.finally(() => inFlight.delete(answering));
    },
  });
  return {
    drain: async () => {
      await subscription.drain();
      await Promise.all(inFlight);
    },
  };

  async function answer(msg: Msg, span: Span): Promise<void> {
    const deadline = deadlineOf(msg.headers);
    if (deadline !== undefined && Date.now() >= deadline) {
      rpcExpired.inc({ subject });
      return;
    }
    let reply: Reply<R>;
    try {
      const parsed = schema.safeParse(msg.json());
      if (!parsed.success) {
        reply = { ok: false, error: { status: 400, message: parsed.error.issues[0]?.message ?? 'invalid request' } };
      } else {
        reply = { ok: true, data: await handler(parsed.data, msg) };
      }
    } catch (err) {
      if (err instanceof RpcFailure) {
        reply = { ok: false, error: { status: err.status, message: err.message } };
      } else if (isTransient(err)) {
        logger.warn({ err, subject }, 'rpc handler met a temporary failure');
        failSpan(span, err);
        reply = { ok: false, error: { status: 503, message: ErrorMessages.unavailable } };
      } else {
        logger.error({ err, subject }, 'rpc handler failed');
        failSpan(span, err);
        reply = { ok: false, error: { status: 500, message: ErrorMessages.internal } };
      }
    }
    msg.respond(JSON.stringify(reply));
  }
}

/**
 * Aborts when the caller of this request stops waiting for the answer (never, for a request that
 * carries no deadline): pass it to the slow work a handler starts (a call to the PSP) so that
 * work nobody waits for stops, rather than competing with the retries of its callers.
 */
export function callerGone(msg: Msg): AbortSignal | undefined {
  const deadline = deadlineOf(msg.headers);
  return deadline === undefined ? undefined : AbortSignal.timeout(Math.max(0, deadline - Date.now()));
}

/** The callee did not answer: nobody listening, or too slow. Temporary by nature (a 503). */
export class RpcUnavailable extends Error {
  constructor(
    readonly subject: string,
    cause: unknown,
  ) {
    super(`no answer on ${subject}`, { cause });
    this.name = 'RpcUnavailable';
  }

  /** Temporary by nature: see isTransient. */
  get transient(): boolean {
    return true;
  }
}

/** Sends a request and returns the validated answer; refusals throw RpcFailure. */
export function callRpc<S extends z.ZodType>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  schema: S,
  timeoutMs = 5000,
): Promise<z.infer<S>> {
  return tracer.startActiveSpan(
    `${subject} request`,
    { kind: SpanKind.CLIENT, attributes: natsAttributes(subject, 'send') },
    async (span) => {
      const stopTimer = natsRequestDuration.startTimer({ subject });
      let outcome = 'error';
      try {
        const answer = await request(nc, subject, payload, schema, timeoutMs);
        outcome = 'ok';
        return answer;
      } catch (err) {
        if (err instanceof RpcFailure) outcome = 'refused';
        else if (err instanceof RpcUnavailable) outcome = 'unavailable';
        // A refusal is an answer (a 4xx for the caller), not a failure of the call.
        if (!(err instanceof RpcFailure) || err.status >= 500) failSpan(span, err);
        throw err;
      } finally {
        stopTimer({ outcome });
        span.end();
      }
    },
  );
}

async function request<S extends z.ZodType>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  schema: S,
  timeoutMs: number,
): Promise<z.infer<S>> {
  let msg: Msg;
  try {
    msg = await nc.request(subject, JSON.stringify(payload), {
      timeout: timeoutMs,
      headers: withDeadline(traceHeaders(), timeoutMs),
    });
  } catch (err) {
    throw new RpcUnavailable(subject, err);
  }
  const reply = msg.json<Reply<unknown>>();
  if (!reply.ok) throw new RpcFailure(reply.error.status, reply.error.message);
  return schema.parse(reply.data);
}
