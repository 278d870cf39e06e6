import { z } from 'zod';
import { RequestLivemodeSchema } from '../modes';
import { defineRpc } from './define-rpc';

/** What the pix-provider-adapter answers over NATS request/reply: the PSP's operations. */

export const CreateChargeRequestSchema = z.object({
  txid: z.string(),
  paymentId: z.string(),
  amountCents: z.number().int(),
  expiresInSeconds: z.number().int().positive(),
  description: z.string().nullable(),
  /** The payment's mode: which of the adapter's PSP connections charges it (test or live). */
  livemode: RequestLivemodeSchema,
});
export const CreateChargeReplySchema = z.object({
  txid: z.string(),
  location: z.string(),
  qrCopyPaste: z.string(),
});
export type CreateChargeReply = z.infer<typeof CreateChargeReplySchema>;

export const ReadChargeRequestSchema = z.object({
  txid: z.string(),
  paymentId: z.string(),
  /** The PSP connection the charge was made at. */
  livemode: RequestLivemodeSchema,
});
export const ReadChargeReplySchema = z.object({
  /** active: can still be paid; concluded: paid; removed; not_found: the PSP has no such charge. */
  status: z.enum(['active', 'concluded', 'removed', 'not_found']),
  /** How many Pix the charge received: each is on the PIX stream (as its callback puts it) before this answer. */
  pixReceived: z.number().int().min(0),
});
export type ReadChargeReply = z.infer<typeof ReadChargeReplySchema>;

export const AdapterRpc = {
  /** A charge for a payment at the PSP, idempotent by txid. */
  createCharge: defineRpc('pix.charges.create', CreateChargeRequestSchema, CreateChargeReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
  /**
   * The charge as the PSP holds it (GET /cob), read before it expires: a Pix it received whose
   * callback never came is told on the PIX stream first, so payments does not expire a paid charge.
   */
  readCharge: defineRpc('pix.charges.read', ReadChargeRequestSchema, ReadChargeReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
} as const;
