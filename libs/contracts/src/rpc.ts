import { z } from 'zod';
import { PIX_MAX_AMOUNT_CENTS } from './money';
import { CreatePaymentInputSchema, ListQuerySchema, PaymentListSchema, PaymentSchema } from './payment';
import { PAYMENT_STATUSES } from './statuses';

/**
 * Request/reply contracts. A reply is either {ok: true, data} or {ok: false, error}, where the
 * error carries an HTTP-like status and one of the ErrorMessages, so the gateway can pass it on.
 */
export const RpcErrorSchema = z.object({ status: z.number().int(), message: z.string() });
export type RpcError = z.infer<typeof RpcErrorSchema>;

export const CreatePaymentRequestSchema = z.object({
  storeId: z.string(),
  input: CreatePaymentInputSchema,
  isPublic: z.boolean(),
  /**
   * Chosen by the caller to make the create idempotent (the gateway's Idempotency-Key): a second
   * create with the same id returns the payment the first one made.
   */
  paymentId: z.uuid().optional(),
});
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequestSchema>;
export const GetPaymentRequestSchema = z.object({ storeId: z.string(), id: z.string() });
export const ListPaymentsRequestSchema = z.object({ storeId: z.string(), query: ListQuerySchema });
export const PaymentQrRequestSchema = z.object({ id: z.string() });
export const PaymentQrReplySchema = z.object({ qrCopyPaste: z.string().nullable() });

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

export const StoreCreateRequestSchema = z.object({ name: z.string().min(1) });
export const StoreCreateReplySchema = z.object({
  storeId: z.string(),
  token: z.string(),
  webhookSecret: z.string(),
});
export const StoreSetActiveRequestSchema = z.object({ storeId: z.string(), active: z.boolean() });
export const StoreSetActiveReplySchema = z.object({ storeId: z.string(), active: z.boolean() });
export const TokenIssueRequestSchema = z.object({
  storeId: z.string(),
  expiresInSeconds: z.number().int().positive().optional(),
});
export const TokenIssueReplySchema = z.object({ token: z.string(), expiresAt: z.string().nullable() });
export const TokenRevokeRequestSchema = z.object({ token: z.string() });
export const TokenRevokeReplySchema = z.object({ revoked: z.literal(true) });
export const WebhookSecretsRequestSchema = z.object({ storeId: z.string() });
export const WebhookSecretsReplySchema = z.object({ secrets: z.array(z.string()) });

/**
 * A refund (API Pix devolução) of a received Pix. `refundId` is chosen by the caller and stable for
 * the payment, so a retried request refunds once at the PSP.
 */
export const CreateRefundRequestSchema = z.object({
  refundId: z.string().regex(/^[A-Za-z0-9]{1,35}$/),
  endToEndId: z.string(),
  amountCents: z.number().int().positive(),
});
/** API Pix's statuses of a devolução. */
export const REFUND_STATUSES = ['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'] as const;
export const CreateRefundReplySchema = z.object({
  refundId: z.string(),
  rtrId: z.string(),
  status: z.enum(REFUND_STATUSES),
});
export type CreateRefundReply = z.infer<typeof CreateRefundReplySchema>;

export const PaymentTransitionRequestSchema = z.object({
  paymentId: z.string(),
  status: z.enum(PAYMENT_STATUSES),
});
export const PaymentTransitionReplySchema = z.object({
  paymentId: z.string(),
  previousStatus: z.enum(PAYMENT_STATUSES),
  status: z.enum(PAYMENT_STATUSES),
});

export const SandboxPayRequestSchema = z.object({
  paymentId: z.string(),
  amountCents: z.number().int().positive().max(PIX_MAX_AMOUNT_CENTS).optional(),
});
export const SandboxPayReplySchema = z.object({
  paymentId: z.string(),
  txid: z.string(),
  endToEndId: z.string(),
  amount: z.number(),
});
/** sandbox review | clear | reject: the PSP's analysis of the payment's received Pix. */
export const SandboxAnalysisRequestSchema = z.object({ paymentId: z.string() });
export const SandboxAnalysisReplySchema = z.object({
  paymentId: z.string(),
  txid: z.string(),
  endToEndId: z.string(),
  analysis: z.enum(['review', 'cleared', 'rejected']),
});

export { PaymentSchema, PaymentListSchema };
