import mongoose, { Schema } from 'mongoose';
import type { CreateRefundReply, PaymentEvent, PaymentStatus } from '@pix/contracts';

/** One event waiting in a payment's outbox to be published to JetStream. */
export interface OutboxEntry {
  subject: string;
  event: PaymentEvent;
  /** W3C trace context of the change that caused the event; the relay publishes in it. */
  trace?: Record<string, string>;
}

export type RefundReason = 'review_timeout' | 'analysis_rejected';

export interface RefundRecord {
  /** Deterministic per payment, so a retried request refunds once at the PSP. */
  id: string;
  reason: RefundReason;
  requestedAt: Date;
  /** The PSP's answer: API Pix devolução status and return id; null until it answered. */
  status: CreateRefundReply['status'] | null;
  rtrId: string | null;
}

export interface PaymentDoc {
  _id: string;
  storeId: string;
  status: PaymentStatus;
  amountCents: number;
  email: string | null;
  observation: string | null;
  webhookUrl: string | null;
  isPublic: boolean;
  createdAt: Date;
  /** The charge's id at the PSP (API Pix txid: 26 to 35 alphanumerics). */
  txid: string;
  qrCodeUrl: string | null;
  qrCopyPaste: string | null;
  /** A charge the PSP has not confirmed yet is retried in the background until this is true. */
  chargeCreated: boolean;
  chargeNextAttemptAt: Date | null;
  chargeAttempts: number;
  /** When an unpaid charge expires. */
  expiresAt: Date;
  /** The PSP's confirmation, kept to recognise a redelivered one (idempotent by endToEndId). */
  paidEndToEndId: string | null;
  paidAmountCents: number | null;
  /**
   * The next deadline of the current status: the charge's expiry while pending, the automatic
   * refund while in review; null otherwise. A replica claims it by pushing it forward (a
   * conditional update), so a claim left by a crashed replica becomes due again by itself.
   */
  deadlineAt: Date | null;
  /** Set when the PSP's analysis rejects the held Pix: the refund is then due at once. */
  refundReason: RefundReason | null;
  /** The refund (API Pix devolução) of the paid amount, once requested. */
  refund: RefundRecord | null;
  /** How many events this payment has emitted; the next one gets eventSeq + 1. */
  eventSeq: number;
  /** Events not yet published, by event id (a map, not an array: unset by id is atomic). */
  outbox: Record<string, OutboxEntry>;
  outboxPending: number;
}

const PaymentSchema = new Schema<PaymentDoc>(
  {
    _id: { type: String, required: true },
    storeId: { type: String, required: true },
    status: { type: String, required: true },
    amountCents: { type: Number, required: true },
    email: { type: String, default: null },
    observation: { type: String, default: null },
    webhookUrl: { type: String, default: null },
    isPublic: { type: Boolean, required: true },
    createdAt: { type: Date, required: true },
    txid: { type: String, required: true },
    qrCodeUrl: { type: String, default: null },
    qrCopyPaste: { type: String, default: null },
    chargeCreated: { type: Boolean, required: true },
    chargeNextAttemptAt: { type: Date, default: null },
    chargeAttempts: { type: Number, default: 0 },
    expiresAt: { type: Date, required: true },
    paidEndToEndId: { type: String, default: null },
    paidAmountCents: { type: Number, default: null },
    deadlineAt: { type: Date, default: null },
    refundReason: { type: String, default: null },
    refund: { type: Schema.Types.Mixed, default: null },
    eventSeq: { type: Number, required: true },
    outbox: { type: Schema.Types.Mixed, default: {} },
    outboxPending: { type: Number, required: true },
  },
  { collection: 'payments', versionKey: false, minimize: false, strict: true },
);

// The list: a store's payments, newest first, optionally by status.
PaymentSchema.index({ storeId: 1, createdAt: -1, _id: -1 });
PaymentSchema.index({ storeId: 1, status: 1, createdAt: -1, _id: -1 });
// The PSP speaks of charges by txid.
PaymentSchema.index({ txid: 1 }, { unique: true });
// The outbox relay and the background charge completion look for work.
PaymentSchema.index({ outboxPending: 1 });
PaymentSchema.index({ chargeCreated: 1, chargeNextAttemptAt: 1 });
// The deadline runner looks for due deadlines.
PaymentSchema.index({ deadlineAt: 1 });

export const PaymentModel = mongoose.model<PaymentDoc>('Payment', PaymentSchema);
