import { z } from 'zod';
import {
  DISPUTE_DECISIONS,
  DisputeClosedWebhookSchema,
  DisputeOpenedWebhookSchema,
  DisputeReminderWebhookSchema,
} from './dispute';
import { LivemodeSchema, RequestLivemodeSchema } from './modes';
import { REFUND_NATURES, RefundSchema } from './refund';
import { PAYMENT_STATUSES } from './statuses';

/**
 * What a webhook tells about the payment (spec 6): the Payment's fields but isPublic, and its mode
 * (modes.ts). PaymentSchema
 * (payment.ts) is this with isPublic and the public API's stricter formats.
 */
export const PaymentEventDataSchema = z.object({
  id: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  amount: z.number(),
  storeId: z.string(),
  livemode: LivemodeSchema,
  createdAt: z.string(),
  webhookUrl: z.string().nullable(),
  observation: z.string().nullable(),
  email: z.string().nullable(),
  qrCodeUrl: z.string().nullable(),
  qrCopyPaste: z.string().nullable(),
});

// `event` comes first, as in the spec's tables: parsing keeps the schema's key order, and the
// dispatcher sends the parsed body.
/** Body of the payment.created webhook (spec 6.1). */
export const PaymentCreatedWebhookSchema = z.object({
  event: z.literal('payment.created'),
  ...PaymentEventDataSchema.shape,
});
/** Body of the payment.status_changed webhook (spec 6.2). */
export const PaymentStatusChangedWebhookSchema = z.object({
  event: z.literal('payment.status_changed'),
  ...PaymentEventDataSchema.shape,
  previousStatus: z.enum(PAYMENT_STATUSES),
});
export const PaymentWebhookSchema = z.discriminatedUnion('event', [
  PaymentCreatedWebhookSchema,
  PaymentStatusChangedWebhookSchema,
]);

/**
 * The refund webhooks: the refund's fields (refund.ts) with `event` first and the payment's
 * `storeId`, to the payment's webhookUrl, in order with the payment's other events.
 */
const refundWebhook = <E extends string>(event: E) =>
  z.object({ event: z.literal(event), ...RefundSchema.shape, storeId: z.string() });
export const RefundCreatedWebhookSchema = refundWebhook('refund.created');
export const RefundSucceededWebhookSchema = refundWebhook('refund.succeeded');
export const RefundFailedWebhookSchema = refundWebhook('refund.failed');
export const RefundWebhookSchema = z.discriminatedUnion('event', [
  RefundCreatedWebhookSchema,
  RefundSucceededWebhookSchema,
  RefundFailedWebhookSchema,
]);

/** Every webhook body a payment's webhookUrl receives, told apart by `event`. */
export const WebhookBodySchema = z.discriminatedUnion('event', [
  PaymentCreatedWebhookSchema,
  PaymentStatusChangedWebhookSchema,
  RefundCreatedWebhookSchema,
  RefundSucceededWebhookSchema,
  RefundFailedWebhookSchema,
  DisputeOpenedWebhookSchema,
  DisputeClosedWebhookSchema,
  DisputeReminderWebhookSchema,
]);
export type WebhookBody = z.infer<typeof WebhookBodySchema>;

/** The webhook events, as the Events API filters them and as the PAYMENTS stream's subjects name them. */
export const EVENT_TYPES = [
  'payment.created',
  'payment.status_changed',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
  'payment.dispute_opened',
  'payment.dispute_closed',
  'payment.dispute_reminder',
] as const satisfies readonly WebhookBody['event'][];
export type EventType = (typeof EVENT_TYPES)[number];

/** Why a payment left pending for not_approved without a Pix: its charge expired, or the merchant cancelled it. */
export const PAYMENT_END_CAUSES = ['expiry', 'cancel'] as const;
export type PaymentEndCause = (typeof PAYMENT_END_CAUSES)[number];

const PaymentEventEnvelopeSchema = z.object({
  eventId: z.string(),
  occurredAt: z.string(),
  /** Position of the event among its payment's events, 1-based: created is 1. */
  sequence: z.number().int().min(1),
  /** The payment the event is about, its store, and where its webhooks go (a refund's body has no webhookUrl). */
  paymentId: z.string(),
  storeId: z.string(),
  webhookUrl: z.string().nullable(),
  /** A status change to not_approved without a Pix: what ended the payment (the hosted page tells the customer). */
  cause: z.enum(PAYMENT_END_CAUSES).optional(),
  body: WebhookBodySchema,
});

/**
 * A payment event on the PAYMENTS stream. `eventId` is stable for the event's whole life: it is the
 * JetStream Nats-Msg-Id and the webhook-id of every delivery attempt. `body` is the webhook body.
 * Events written before refunds existed carry the payment only in their body; they are read the same.
 */
export const PaymentEventSchema = z.preprocess((raw) => {
  if (typeof raw !== 'object' || raw === null || 'paymentId' in raw) return raw;
  const body = (raw as { body?: { id?: unknown; storeId?: unknown; webhookUrl?: unknown } }).body;
  return { ...raw, paymentId: body?.id, storeId: body?.storeId, webhookUrl: body?.webhookUrl ?? null };
}, PaymentEventEnvelopeSchema);
export type PaymentEvent = z.infer<typeof PaymentEventEnvelopeSchema>;

/**
 * The mode of the PSP connection that told a fact (pix.events.*): payments applies it only to a
 * payment of that mode, so nothing a test PSP says can move a live payment. A fact from before
 * connections had modes was the one connection's: test.
 */
const FactModeSchema = RequestLivemodeSchema;

/**
 * A Pix the PSP received for a charge: pix.events.paid (confirmed) or pix.events.review (received
 * but held by the PSP for analysis). Idempotent by endToEndId.
 */
export const PixPaidEventSchema = z.object({
  endToEndId: z.string(),
  txid: z.string(),
  amountCents: z.number().int(),
  paidAt: z.string(),
  livemode: FactModeSchema,
});
export type PixPaidEvent = z.infer<typeof PixPaidEventSchema>;

/** The end of the PSP's analysis of a held Pix: pix.events.cleared or pix.events.rejected. */
export const PixAnalysisEventSchema = z.object({
  endToEndId: z.string(),
  txid: z.string(),
  decidedAt: z.string(),
  livemode: FactModeSchema,
});
export type PixAnalysisEvent = z.infer<typeof PixAnalysisEventSchema>;

/**
 * How the PSP settled a refund (devolução): pix.events.refunded (DEVOLVIDO) or
 * pix.events.refund_failed (NAO_REALIZADO, with the PSP's motivo). `pspRefundId` is the devolução's
 * id at the PSP: for a refund of the platform's it names the payment's charge (refundPspId in
 * pix.ts); one the PSP made on its own (a MED return) has an id of the PSP's choosing, and its
 * `amountCents` and `nature` are what the platform records it by. Both are absent from facts told
 * before they were carried.
 */
export const PixRefundSettledEventSchema = z.object({
  txid: z.string(),
  endToEndId: z.string(),
  pspRefundId: z.string(),
  rtrId: z.string().nullable(),
  settledAt: z.string(),
  failureReason: z.string().nullable(),
  amountCents: z.number().int().positive().optional(),
  /** The devolução's natureza in the platform's words (refund.ts); ORIGINAL and RETIRADA are `other`. */
  nature: z.enum(REFUND_NATURES).optional(),
  livemode: FactModeSchema,
});
export type PixRefundSettledEvent = z.infer<typeof PixRefundSettledEventSchema>;

/**
 * An infraction (a MED claim) against a received Pix, as a PSP that reports them tells it
 * (docs/decisions/disputes.md): pix.events.dispute_opened, and pix.events.dispute_closed with the
 * PSP's `decision` once it decided. `pspDisputeId` is the infraction's id at the PSP; `amountCents`
 * what the claim blocks; `deadlineAt` the last moment the receiver may answer. Idempotent by the
 * infraction and its state.
 */
export const PixDisputeEventSchema = z.object({
  txid: z.string(),
  endToEndId: z.string(),
  pspDisputeId: z.string(),
  reason: z.string(),
  kind: z.string(),
  amountCents: z.number().int().positive(),
  deadlineAt: z.string(),
  openedAt: z.string(),
  decision: z.enum(DISPUTE_DECISIONS).optional(),
  decidedAt: z.string().optional(),
  livemode: FactModeSchema,
});
export type PixDisputeEvent = z.infer<typeof PixDisputeEventSchema>;
