import { z } from 'zod';
import { defineRpc } from './define-rpc';

/** What the pix-provider-adapter answers over NATS request/reply: the PSP's operations. */

export const CreateChargeRequestSchema = z.object({
  txid: z.string(),
  paymentId: z.string(),
  amountCents: z.number().int(),
  expiresInSeconds: z.number().int().positive(),
  description: z.string().nullable(),
});
export const CreateChargeReplySchema = z.object({
  txid: z.string(),
  location: z.string(),
  qrCopyPaste: z.string(),
});
export type CreateChargeReply = z.infer<typeof CreateChargeReplySchema>;

export const AdapterRpc = {
  /** A charge for a payment at the PSP, idempotent by txid. */
  createCharge: defineRpc('pix.charges.create', CreateChargeRequestSchema, CreateChargeReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
} as const;
