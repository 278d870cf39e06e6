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

/**
 * A refund of a received Pix. `refundId` is chosen by the caller and stable for
 * the payment, so a retried request refunds once at the PSP.
 */
export const CreateRefundRequestSchema = z.object({
  refundId: z.string().regex(/^[A-Za-z0-9]{1,35}$/),
  endToEndId: z.string(),
  amountCents: z.number().int().positive(),
});
/** How a refund stands at the PSP: under way, the money is back with the payer, or it failed. */
const REFUND_STATUSES = ['processing', 'refunded', 'failed'] as const;
export const CreateRefundReplySchema = z.object({
  refundId: z.string(),
  rtrId: z.string(),
  status: z.enum(REFUND_STATUSES),
});
export type CreateRefundReply = z.infer<typeof CreateRefundReplySchema>;

export const AdapterRpc = {
  /** A charge for a payment at the PSP, idempotent by txid. */
  createCharge: defineRpc('pix.charges.create', CreateChargeRequestSchema, CreateChargeReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
  /** A refund of a received Pix, idempotent by refund id. */
  createRefund: defineRpc('pix.refunds.create', CreateRefundRequestSchema, CreateRefundReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
} as const;
