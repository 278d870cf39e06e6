import { z } from 'zod';
import { LivemodeSchema } from './modes';

/**
 * Money going back (docs/design.md, "Money going back"): a refund (API Pix's devolução) returns
 * all or part of a received Pix to its payer. Its status is its own, beside the payment's:
 * `pending` until the PSP settles it, then `succeeded` (DEVOLVIDO) or `failed` (NAO_REALIZADO).
 */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/**
 * Who asked for it: `merchant` (the refunds route), `platform` (a Pix that arrived for a payment
 * no longer pending, or the paid amount of a payment that left review without approval), or `psp`
 * (a devolução the PSP made on its own, such as a MED return after a fraud claim: the platform
 * learns of it when it is settled).
 */
export const REFUND_ORIGINS = ['merchant', 'platform', 'psp'] as const;
export type RefundOrigin = (typeof REFUND_ORIGINS)[number];

/**
 * Why the PSP returned the money on its own (API Pix's natureza of its devolução): `med_fraud`
 * (MED_FRAUDE, a fraud claim upheld under the Mecanismo Especial de Devolução), `med_operational`
 * (MED_OPERACIONAL, an operational failure of a PSP), `other` (any other natureza, or none told).
 * Refunds the merchant or the platform asked for have none (null).
 */
export const REFUND_NATURES = ['med_fraud', 'med_operational', 'other'] as const;
export type RefundNature = (typeof REFUND_NATURES)[number];
/** The natures of a MED return, which the sandbox makes on request. */
export const MED_NATURES = ['med_fraud', 'med_operational'] as const satisfies readonly RefundNature[];
export type MedNature = (typeof MED_NATURES)[number];

/** API Pix's `descricao` of a devolução holds at most 140 characters. */
export const MAX_REFUND_REASON_CHARS = 140;

/** API Pix accepts a devolução up to 90 days after the Pix settled. */
export const REFUND_WINDOW_MS = 90 * 24 * 60 * 60 * 1000;

/**
 * Refunds a merchant may ask for on one payment. Each is kept inside its payment (its record and
 * the "sum ≤ paid" check are one document), so the count is bounded; a hundred partial refunds of
 * one sale is far beyond any store's use.
 */
export const MAX_MERCHANT_REFUNDS = 100;

/** A refund as the public API returns it and as its webhooks carry it. */
export const RefundSchema = z.object({
  id: z.uuid(),
  paymentId: z.uuid(),
  livemode: LivemodeSchema,
  endToEndId: z.string().meta({ description: 'The Pix this refund returns (API Pix endToEndId)' }),
  amount: z.number().meta({ description: 'BRL, at most two decimal places' }),
  status: z.enum(REFUND_STATUSES).meta({
    description: 'pending: asked of the PSP; succeeded: the money is back with the payer; failed: the PSP refused it',
  }),
  reason: z
    .string()
    .nullable()
    .meta({ description: "The merchant's reason, sent to the PSP as the devolução's descricao" }),
  origin: z.enum(REFUND_ORIGINS).meta({
    description:
      'merchant: asked through the API or the dashboard; platform: a Pix that arrived for a payment no longer ' +
      'pending, returned in full, or the paid amount of a payment refused in review; psp: returned by the PSP ' +
      'on its own (a MED return after a fraud claim), told to the platform when it settled',
  }),
  // An event written before refunds had a nature has none: read as null (the Events API lists it).
  nature: z
    .enum(REFUND_NATURES)
    .nullable()
    .default(null)
    .meta({
      description:
        'Why the PSP returned the money, for origin psp: med_fraud (MED, fraud claim), med_operational ' +
        "(MED, a PSP's operational failure), other; null for the merchant's and the platform's refunds",
    }),
  createdAt: z.iso.datetime({ precision: 3 }),
  settledAt: z.iso.datetime({ precision: 3 }).nullable().meta({ description: 'When it succeeded or failed' }),
  failureReason: z.string().nullable().meta({ description: "The PSP's motivo, when it failed" }),
});
export type Refund = z.infer<typeof RefundSchema>;

/** A payment's refunds, newest first. */
export const RefundListSchema = z.object({ items: z.array(RefundSchema) });
export type RefundList = z.infer<typeof RefundListSchema>;

/**
 * The devolução's descricao of the platform's own refunds, and their `reason`: the payer reads it
 * in their bank's statement, so it is Portuguese.
 */
export const PlatformRefundReasons = {
  latePix: 'Devolução automática: Pix recebido para um pagamento que não estava mais pendente.',
  reviewTimeout: 'Devolução automática: pagamento em análise por mais tempo que o permitido.',
  analysisRejected: 'Devolução automática: Pix recusado na análise.',
} as const;
