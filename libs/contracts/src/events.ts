import { z } from 'zod';
import { PAYMENT_STATUSES } from './statuses';

/**
 * What a webhook tells about the payment (spec 6): the Payment's fields but isPublic. PaymentSchema
 * (payment.ts) is this with isPublic and the public API's stricter formats.
 */
export const PaymentEventDataSchema = z.object({
  id: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  amount: z.number(),
  storeId: z.string(),
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
 * A payment event on the PAYMENTS stream. `eventId` is stable for the event's whole life: it is the
 * JetStream Nats-Msg-Id and the webhook-id of every delivery attempt. `body` is the webhook body.
 */
export const PaymentEventSchema = z.object({
  eventId: z.string(),
  occurredAt: z.string(),
  /** Position of the event among its payment's events, 1-based: created is 1. */
  sequence: z.number().int().min(1),
  body: PaymentWebhookSchema,
});
export type PaymentEvent = z.infer<typeof PaymentEventSchema>;

/**
 * A Pix the PSP received for a charge: pix.events.paid (confirmed) or pix.events.review (received
 * but held by the PSP for analysis). Idempotent by endToEndId.
 */
export const PixPaidEventSchema = z.object({
  endToEndId: z.string(),
  txid: z.string(),
  amountCents: z.number().int(),
  paidAt: z.string(),
});
export type PixPaidEvent = z.infer<typeof PixPaidEventSchema>;

/** The end of the PSP's analysis of a held Pix: pix.events.cleared or pix.events.rejected. */
export const PixAnalysisEventSchema = z.object({
  endToEndId: z.string(),
  txid: z.string(),
  decidedAt: z.string(),
});
export type PixAnalysisEvent = z.infer<typeof PixAnalysisEventSchema>;
