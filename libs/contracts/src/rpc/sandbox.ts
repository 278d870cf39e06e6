import { z } from 'zod';
import { PIX_MAX_AMOUNT_CENTS } from '../money';
import { MED_NATURES } from '../refund';
import { defineRpc } from './define-rpc';

/**
 * The sandbox PSP's actions, served by the pix-provider-adapter through the back office of its test
 * connection's PSP (the simulator's, PSP_BACKOFFICE_URL): the customer's Pix, and the PSP's
 * analysis of it (review, then clear or reject). Test payments only: a live payment's charge is at
 * the live PSP, where nobody but the payer's bank pays it.
 */

export const SandboxPayReplySchema = z.object({
  paymentId: z.string(),
  txid: z.string(),
  endToEndId: z.string(),
  amount: z.number(),
});
const SandboxAnalysisRequestSchema = z.object({ paymentId: z.string() });
export const SandboxAnalysisReplySchema = z.object({
  paymentId: z.string(),
  txid: z.string(),
  endToEndId: z.string(),
  analysis: z.enum(['review', 'cleared', 'rejected']),
});

export const SandboxFailNextRefundReplySchema = z.object({
  paymentId: z.string(),
  txid: z.string(),
  /** The motivo the PSP will give for the payment's next refund. */
  failureReason: z.string(),
});

export const SandboxMedReplySchema = z.object({
  paymentId: z.string(),
  txid: z.string(),
  /** The Pix returned. */
  endToEndId: z.string(),
  /** BRL returned. */
  amount: z.number(),
  nature: z.enum(MED_NATURES),
});

/** Called by the gateway's sandbox routes (a store's own payments) and by the operator's CLI. */
const sandboxAccess = { server: 'pix-provider-adapter', callers: ['gateway', 'admin'] } as const;

export const SandboxRpc = {
  pay: defineRpc(
    'sandbox.pay',
    z.object({
      paymentId: z.string(),
      amountCents: z.number().int().positive().max(PIX_MAX_AMOUNT_CENTS).optional(),
      /** A new Pix whatever the charge's state (paid, expired, removed): to play a Pix against a cancel or an expiry. */
      late: z.boolean().optional(),
      /** The PSP receives the Pix but loses its callback: the platform learns of it only by reconciling. */
      dropCallback: z.boolean().optional(),
    }),
    SandboxPayReplySchema,
    sandboxAccess,
  ),
  review: defineRpc('sandbox.review', SandboxAnalysisRequestSchema, SandboxAnalysisReplySchema, sandboxAccess),
  clear: defineRpc('sandbox.clear', SandboxAnalysisRequestSchema, SandboxAnalysisReplySchema, sandboxAccess),
  reject: defineRpc('sandbox.reject', SandboxAnalysisRequestSchema, SandboxAnalysisReplySchema, sandboxAccess),
  /** The PSP settles the payment's next refund as not done (NAO_REALIZADO, with a motivo). */
  failNextRefund: defineRpc(
    'sandbox.fail-next-refund',
    z.object({ paymentId: z.string() }),
    SandboxFailNextRefundReplySchema,
    sandboxAccess,
  ),
  /**
   * The PSP returns the payment's Pix on its own (a MED return): the platform hears of it as of any
   * devolução of the PSP's own, and the payment gains a refund of origin psp.
   */
  med: defineRpc(
    'sandbox.med',
    z.object({
      paymentId: z.string(),
      amountCents: z.number().int().positive().max(PIX_MAX_AMOUNT_CENTS).optional(),
      nature: z.enum(MED_NATURES),
    }),
    SandboxMedReplySchema,
    sandboxAccess,
  ),
} as const;
