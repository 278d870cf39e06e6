import { PermissionViolationError, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { SpanKind, type Span } from '@opentelemetry/api';
import {
  DomainError,
  ErrorMessages,
  type RpcDefinition,
  type RpcError,
  type RpcParsedRequest,
  type RpcReply,
  type RpcReplyBody,
  type RpcRequest,
} from '@pix/contracts';
import type { Logger } from '@pix/observability';
import type { z } from 'zod';
import { currentConnection, isNatsConnected } from './connection';
import { contextFromHeaders, deadlineOf, traceHeaders, withDeadline } from './headers';
import { failSpan, natsAttributes, natsRequestDuration, rpcAnswersDropped, rpcExpired, tracer } from './telemetry';
import { isTransient } from './transient';

/**
 * A callee that could not handle the request at all (malformed, a temporary failure, a bug), with an
 * HTTP-like status and a contract message. A refusal of the request itself is a DomainError.
 */
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
 * Serves one request/reply definition in a queue group: every replica subscribes, each request is
 * answered once. The handler gets the parsed request and must answer what the definition's reply
 * schema takes (a mismatch fails to compile). DomainErrors travel back as their code; bad requests
 * and RpcFailures are answered with their status; anything else is logged and answered as an
 * internal error, never left to time out silently. A request whose caller stopped waiting before
 * it was taken up is dropped (see withDeadline); the handler gets the time left as a signal
 * (callerGone) to bound what it starts. A message that arrives with another subject is no request:
 * a JetStream consumer can push a stream's messages onto any subject that has a listener, and they
 * keep their stream's subject, so whoever may create one could otherwise make a stream's content a
 * request here. It is dropped and logged, and so is a message with no reply subject to answer on.
 */
export function serveRpc<D extends RpcDefinition>(
  nc: NatsConnection,
  definition: D,
  handler: (request: RpcParsedRequest<D>, msg: Msg) => Promise<RpcReplyBody<D>>,
  options: { queue: string; logger: Logger },
): RpcServer {
  const { subject, request: schema } = definition;
  const { queue, logger } = options;
  // Answers under way: a graceful shutdown waits for them, so a request taken is never left unanswered.
  const inFlight = new Set<Promise<void>>();
  const subscription = nc.subscribe(subject, {
    queue,
    callback: (err, msg) => {
      if (err) {
        logger.error({ err, subject }, 'rpc subscription error');
        return;
      }
      if (msg.subject !== subject) {
        logger.error({ subject, received: msg.subject }, 'a message that is no request for this subject; dropped');
        return;
      }
      // An answer is no request: one that a replica of this service asked for onto this subject
      // comes back into its own account here (docs/decisions/nats-accounts.md), without a reply
      // subject, or with a pulled message's acknowledgement subject.
      if (!msg.reply || msg.reply.startsWith('$JS.')) {
        logger.error({ subject, reply: msg.reply }, 'a message without a reply subject to answer on; dropped');
        return;
      }
      const takenOn = currentConnection(nc);
      // The handler's span is a child of the caller's, whose context travels in the headers.
      const answering = tracer
        .startActiveSpan(
          `${subject} process`,
          { kind: SpanKind.SERVER, attributes: natsAttributes(subject, 'process') },
          contextFromHeaders(msg.headers),
          (span) => answer(msg, span, takenOn).finally(() => span.end()),
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

  async function answer(msg: Msg, span: Span, takenOn: string): Promise<void> {
    const deadline = deadlineOf(msg.headers);
    if (deadline !== undefined && Date.now() >= deadline) {
      rpcExpired.inc({ subject });
      return;
    }
    let reply: Reply<RpcReplyBody<D>>;
    try {
      const parsed = schema.safeParse(msg.json());
      if (!parsed.success) {
        reply = { ok: false, error: { status: 400, message: parsed.error.issues[0]?.message ?? 'invalid request' } };
      } else {
        reply = { ok: true, data: await handler(parsed.data as RpcParsedRequest<D>, msg) };
      }
    } catch (err) {
      if (err instanceof DomainError) {
        reply = { ok: false, error: { code: err.code, params: err.params } };
      } else if (err instanceof RpcFailure) {
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
    // NATS lets an answer onto its reply subject only over the connection that took the request
    // (the permission is per connection, a service import's reply subject per server): once that
    // connection is gone, an answer would be refused as a permissions violation and page an SRE for
    // a NATS member's restart. The caller stopped hearing either way, and asks again.
    if (!isNatsConnected(nc) || currentConnection(nc) !== takenOn) {
      rpcAnswersDropped.inc({ subject });
      logger.warn({ subject }, 'an answer not sent: NATS reconnected since its request was taken');
      return;
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

/**
 * Sends a request on a definition's subject and returns the reply, parsed by its schema. A refusal
 * throws the callee's DomainError, a failure of the callee RpcFailure, no answer RpcUnavailable,
 * and NATS's refusal to let this identity ask PermissionViolationError (not temporary: a bug).
 */
export function callRpc<D extends RpcDefinition>(
  nc: NatsConnection,
  definition: D,
  payload: RpcRequest<D>,
  timeoutMs = 5000,
): Promise<RpcReply<D>> {
  const { subject, reply: schema } = definition;
  return tracer.startActiveSpan(
    `${subject} request`,
    { kind: SpanKind.CLIENT, attributes: natsAttributes(subject, 'send') },
    async (span) => {
      const stopTimer = natsRequestDuration.startTimer({ subject });
      let outcome = 'error';
      try {
        const answer = await request(nc, subject, payload, schema, timeoutMs);
        outcome = 'ok';
        return answer as RpcReply<D>;
      } catch (err) {
        if (err instanceof RpcFailure || err instanceof DomainError) outcome = 'refused';
        else if (err instanceof RpcUnavailable) outcome = 'unavailable';
        else if (err instanceof PermissionViolationError) outcome = 'forbidden';
        // A refusal is an answer (a 4xx for the caller), not a failure of the call.
        if (!(err instanceof DomainError) && (!(err instanceof RpcFailure) || err.status >= 500)) failSpan(span, err);
        throw err;
      } finally {
        stopTimer({ outcome });
        span.end();
      }
    },
  );
}

async function request(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  schema: z.ZodType,
  timeoutMs: number,
): Promise<unknown> {
  let msg: Msg;
  try {
    msg = await nc.request(subject, JSON.stringify(payload), {
      timeout: timeoutMs,
      headers: withDeadline(traceHeaders(), timeoutMs),
    });
  } catch (err) {
    throw forbidden(err) ?? new RpcUnavailable(subject, err);
  }
  const reply = msg.json<Reply<unknown>>();
  if (!reply.ok) {
    const { error } = reply;
    throw 'code' in error ? new DomainError(error.code, error.params) : new RpcFailure(error.status, error.message);
  }
  return schema.parse(reply.data);
}

/** NATS's refusal to let this identity publish the request (nats.js reports it as the cause of a RequestError). */
function forbidden(err: unknown): PermissionViolationError | undefined {
  if (err instanceof PermissionViolationError) return err;
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof PermissionViolationError ? cause : undefined;
}
