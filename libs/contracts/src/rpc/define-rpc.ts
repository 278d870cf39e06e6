import type { z } from 'zod';

/**
 * One request/reply operation of a service: its subject, what it takes and what it answers. The
 * server (`serveRpc`) and every caller (`callRpc`) take the same definition, so a handler whose
 * reply does not match the reply schema, or a caller sending the wrong request, fails to compile.
 */
export interface RpcDefinition<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export function defineRpc<Req extends z.ZodType, Rep extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Rep,
): RpcDefinition<Req, Rep> {
  return { subject, request, reply };
}

/** What a caller sends (before the server's parse: defaults may be left out). */
export type RpcRequest<D extends RpcDefinition> = z.input<D['request']>;
/** What a handler receives: the parsed request. */
export type RpcParsedRequest<D extends RpcDefinition> = z.output<D['request']>;
/** What a handler must answer: what the caller's parse of the reply takes. */
export type RpcReplyBody<D extends RpcDefinition> = z.input<D['reply']>;
/** What a caller gets back: the parsed reply. */
export type RpcReply<D extends RpcDefinition> = z.output<D['reply']>;
