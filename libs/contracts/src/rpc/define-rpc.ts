import type { z } from 'zod';
import type { NatsIdentity } from '../identities';

/**
 * Who may use an operation: the identity that serves it and those that may call it. NATS refuses
 * anyone else (permissions.ts turns these into the server's authorization).
 */
export interface RpcAccess {
  readonly server: NatsIdentity;
  readonly callers: readonly NatsIdentity[];
}

/**
 * One request/reply operation of a service: its subject, what it takes and what it answers. The
 * server (`serveRpc`) and every caller (`callRpc`) take the same definition, so a handler whose
 * reply does not match the reply schema, or a caller sending the wrong request, fails to compile.
 */
export interface RpcDefinition<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> extends RpcAccess {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export function defineRpc<Req extends z.ZodType, Rep extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Rep,
  access: RpcAccess,
): RpcDefinition<Req, Rep> {
  return { subject, request, reply, ...access };
}

/** What a caller sends (before the server's parse: defaults may be left out). */
export type RpcRequest<D extends RpcDefinition> = z.input<D['request']>;
/** What a handler receives: the parsed request. */
export type RpcParsedRequest<D extends RpcDefinition> = z.output<D['request']>;
/** What a handler must answer: what the caller's parse of the reply takes. */
export type RpcReplyBody<D extends RpcDefinition> = z.input<D['reply']>;
/** What a caller gets back: the parsed reply. */
export type RpcReply<D extends RpcDefinition> = z.output<D['reply']>;
