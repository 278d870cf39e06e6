import { z } from 'zod';

/** A refusal as it travels back over NATS: an HTTP-like status and one of the contract's messages. */
export const RpcErrorSchema = z.object({ status: z.number().int(), message: z.string() });
export type RpcError = z.infer<typeof RpcErrorSchema>;
