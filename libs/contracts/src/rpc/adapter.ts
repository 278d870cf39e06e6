import { z } from 'zod';
import { RequestLivemodeSchema } from '../modes';
import { ListedPixSchema, PIX_READ_MAX } from '../statement-check';
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

/** A page of the Pix the PSP received in a window (GET /pix), for the statement check. */
export const ListPixRequestSchema = z.object({
  livemode: RequestLivemodeSchema,
  from: z.iso.datetime({ precision: 3 }),
  to: z.iso.datetime({ precision: 3 }),
  page: z.number().int().min(0),
});
export const ListPixReplySchema = z.discriminatedUnion('connection', [
  z.object({ connection: z.literal('open'), pix: z.array(ListedPixSchema), pages: z.number().int().min(0) }),
  /** The adapter has no such connection configured: there is nothing to check. */
  z.object({ connection: z.literal('not_configured') }),
]);
export type ListPixReply = z.infer<typeof ListPixReplySchema>;

/** Pix read one by one (GET /pix/{e2eid}): those the PSP has, and the ids it does not know. */
export const ReadPixRequestSchema = z.object({
  livemode: RequestLivemodeSchema,
  endToEndIds: z.array(z.string().min(1).max(35)).min(1).max(PIX_READ_MAX),
});
export const ReadPixReplySchema = z.object({ pix: z.array(ListedPixSchema), unknown: z.array(z.string()) });
export type ReadPixReply = z.infer<typeof ReadPixReplySchema>;

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
  /** The PSP's listing of the Pix it received in a window, a page at a time (the statement check). */
  listPix: defineRpc('pix.listing.list', ListPixRequestSchema, ListPixReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
  /** Pix a day's movements name that the PSP did not list that day, read one by one (the statement check). */
  readPix: defineRpc('pix.listing.read', ReadPixRequestSchema, ReadPixReplySchema, {
    server: 'pix-provider-adapter',
    callers: ['payments'],
  }),
} as const;
