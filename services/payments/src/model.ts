import mongoose, { Schema } from 'mongoose';
import type { CreateRefundReply, PaymentStatus } from '@pix/contracts';

export type RefundReason = 'review_timeout' | 'analysis_rejected';

export interface RefundRecord {
  /** Deterministic per payment, so a retried request refunds once at the PSP. */
  id: string;
  reason: RefundReason;
  requestedAt: Date;
  /** The PSP's answer (the refund's status and return id); null until it answered. */
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
  /** False while the PSP has not taken the charge; a scheduled retry completes it. */
  chargeCreated: boolean;
  /** When an unpaid charge expires. */
  expiresAt: Date;
  /** The PSP's confirmation, kept to recognise a redelivered one (idempotent by endToEndId). */
  paidEndToEndId: string | null;
  paidAmountCents: number | null;
  /** When the automatic refund of a payment in review falls due; null otherwise. */
  deadlineAt: Date | null;
  /** Set when the PSP's analysis rejects the held Pix: the refund is then due at once. */
  refundReason: RefundReason | null;
  /** The refund of the paid amount, once requested. */
  refund: RefundRecord | null;
  /** How many events this payment has emitted; the next one gets eventSeq + 1. */
  eventSeq: number;
  /** How many times the document was written; a writer claims `_id:rev` before writing rev + 1. */
  rev: number;
  /**
   * The intents (their `writer`) whose writes made this document, one per revision: the proof the
   * recovery sweep needs that a leftover intent's write happened. Absent on documents written before
   * it existed.
   */
  writtenBy?: string[];
}

/**
 * A message a write owes to JetStream: an event, or a scheduled message (a deadline, a retry).
 * Stored in the write's intent before the write, published after it.
 */
export interface OutboxMessage {
  subject: string;
  /** Nats-Msg-Id: JetStream keeps one message per id, so publishing again is harmless. */
  msgId: string;
  /** The message's body, published as JSON. */
  body: unknown;
  /** W3C trace context of the change that caused the message; it is published in it. */
  trace?: Record<string, string>;
  /** A scheduled message: delivered on `target` at `at` (JetStream message schedules). */
  schedule?: { at: Date; target: string };
}

/**
 * A write's intent: the claim on one revision of a payment (its unique `_id`, `<paymentId>:<rev>`,
 * lets exactly one writer move the payment from that revision) and the messages the write owes.
 * It exists only while a write is in flight, or as a leftover of one that crashed.
 */
export interface IntentDoc {
  _id: string;
  paymentId: string;
  rev: number;
  at: Date;
  /**
   * Who claimed it (random, per claim): the same revision can be claimed again once a writer lets
   * it go, so only this says whether the payment's revision is this claim's write. Absent on
   * intents written before it existed.
   */
  writer?: string;
  /** Always true: the recovery sweep finds leftovers by this indexed equality. */
  open: true;
  messages: OutboxMessage[];
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
    expiresAt: { type: Date, required: true },
    paidEndToEndId: { type: String, default: null },
    paidAmountCents: { type: Number, default: null },
    deadlineAt: { type: Date, default: null },
    refundReason: { type: String, default: null },
    refund: { type: Schema.Types.Mixed, default: null },
    eventSeq: { type: Number, required: true },
    rev: { type: Number, required: true },
    writtenBy: { type: [String], default: undefined },
  },
  { collection: 'payments', versionKey: false, minimize: false, strict: true },
);

// The list: a store's payments, newest first, optionally by status.
PaymentSchema.index({ storeId: 1, createdAt: -1, _id: -1 });
PaymentSchema.index({ storeId: 1, status: 1, createdAt: -1, _id: -1 });
// The PSP speaks of charges by txid.
PaymentSchema.index({ txid: 1 }, { unique: true });

const IntentSchema = new Schema<IntentDoc>(
  {
    _id: { type: String, required: true },
    paymentId: { type: String, required: true },
    rev: { type: Number, required: true },
    at: { type: Date, required: true },
    writer: { type: String },
    open: { type: Boolean, required: true },
    messages: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'payment_intents', versionKey: false, minimize: false, strict: true },
);
// The recovery sweep.
IntentSchema.index({ open: 1 });

export const PaymentModel = mongoose.model<PaymentDoc>('Payment', PaymentSchema);
export const IntentModel = mongoose.model<IntentDoc>('PaymentIntent', IntentSchema);
