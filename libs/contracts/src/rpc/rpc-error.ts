import type { DomainErrorBody } from '../domain-errors';

/**
 * A refusal as it travels back over NATS: a domain error's code, or, when the callee could not
 * handle the request at all (malformed, a temporary failure, a bug), an HTTP-like status and message.
 */
export type RpcError = DomainErrorBody | { status: number; message: string };
