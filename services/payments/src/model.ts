import mongoose, { Schema, type mongo } from 'mongoose';
import { driverCollection } from '@pix/runtime';
import type {
  BalanceTransactionType,
  ModeName,
  PaymentStatus,
  RefundNature,
  RefundOrigin,
  RefundStatus,
} from '@pix/contracts';
import type { DisputeRecord } from './disputes';

/** Why a payment in review is refunded: it stayed in review too long, or the PSP's analysis rejected its Pix. */
export type ReviewRefundCause = 'review_timeout' | 'analysis_rejected';

/**
 * A refund (devolução) of a Pix the payment received, kept inside its payment: the check that the
 * refunds of a Pix never exceed it and the record of a new one are then one conditional write, and
 * the refund's events share the payment's sequence (in order with its other webhooks).
 */
export interface RefundRecord {
  /** The refund's public id (a UUID). */
  id: string;
  /**
   * The devolução's id at the PSP: for the merchant's and the platform's refunds, derived from the
   * charge's txid and the refund's number (refundPspId); for the PSP's own (origin psp), the id it chose.
   */
  pspRefundId: string;
  /** The Pix it returns: the one that paid the payment, or one that arrived after (a platform refund). */
  endToEndId: string;
  amountCents: number;
  /** Changed only as refund-state-machine.ts allows. */
  status: RefundStatus;
  reason: string | null;
  origin: RefundOrigin;
  /** Why the PSP made it, for origin psp (a MED return); absent on the merchant's and the platform's. */
  nature?: RefundNature;
  createdAt: Date;
  settledAt: Date | null;
  failureReason: string | null;
  /** The return's id in the Pix system (API Pix rtrId), once the PSP gave it. */
  rtrId: string | null;
}

/**
 * The one refund a payment in review had before refunds were records of their own (`refund`): read
 * as a platform refund of the paid Pix (refund-records.ts), never written any more.
 */
export interface LegacyRefund {
  id: string;
  reason: ReviewRefundCause;
  requestedAt: Date;
  status: 'processing' | 'refunded' | 'failed' | null;
  rtrId: string | null;
}

export interface PaymentDoc {
  _id: string;
  storeId: string;
  /**
   * Live mode: the payment was created with a live token, and only live tokens see it. Set once at
   * create; absent on the payments created before modes, which are test payments (isLive).
   */
  livemode?: boolean;
  status: PaymentStatus;
  amountCents: number;
  email: string | null;
  observation: string | null;
  webhookUrl: string | null;
  isPublic: boolean;
  createdAt: Date;
  /** The keys the store's list reads it by (list-page.ts); statusKey changes with the status. */
  listKey: string;
  statusKey: string;
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
  /** When the Pix that paid it settled (the PSP's horario): the 90 days to refund it count from here. */
  paidAt: Date | null;
  /** When the automatic refund of a payment in review falls due; null otherwise. */
  deadlineAt: Date | null;
  /** Set when the PSP's analysis rejects the held Pix: the refund is then due at once. */
  refundReason: ReviewRefundCause | null;
  /** Every refund of a Pix of this payment, oldest first (a refund's PSP id holds its position). */
  refunds: RefundRecord[];
  /** When the merchant cancelled it (pending to not_approved); null otherwise. */
  cancelledAt: Date | null;
  /** The payer's fraud claim (MED) against its Pix, as the PSP told it (disputes.ts); absent when none. */
  dispute?: DisputeRecord;
  /** How many events this payment has emitted; the next one gets eventSeq + 1. */
  eventSeq: number;
  /** How many times the document was written: every change is conditional on the revision it read. */
  rev: number;
  /**
   * The messages its writes owed to JetStream: each write adds its own in the same atomic command
   * that changes the payment, and its writer publishes them right after. They stay until the
   * payment's next write, which leaves out those known to be published (outbox-writer.ts): recording
   * a publish writes nothing. The relay publishes those of a writer that died.
   */
  outbox: OutboxEntry[];
}

/**
 * A message a write owes to JetStream: an event, a scheduled message (a deadline, a retry), or an
 * increment of one of the store's payment counters.
 */
export interface OutboxMessage {
  subject: string;
  /** Nats-Msg-Id: JetStream keeps one message per id, so publishing again is harmless. */
  msgId: string;
  /** The message's body, published as JSON (none for an increment). */
  body?: unknown;
  /** An increment of the counter `subject` (the PAYMENT_COUNTS stream). */
  increment?: number;
  /** W3C trace context of the change that caused the message; it is published in it. */
  trace?: Record<string, string>;
  /** A scheduled message: delivered on `target` at `at` (JetStream message schedules). */
  schedule?: { at: Date; target: string };
  /**
   * A movement of the store's money the write made (balance-transactions.ts): recorded in
   * `balance_transactions` (its `subject`), not published to JetStream.
   */
  movement?: BalanceMovement;
  /**
   * The payment's view is owed to its read model (payment-views.ts): made from the payment as it is
   * when published, so the message holds no body.
   */
  view?: true;
}

/** A movement of a store's money, as its write owes it: one balance transaction, amounts signed. */
export interface BalanceMovement {
  /** `<paymentId>:<type>:<refund id or endToEndId>`: the same movement always has the same id. */
  id: string;
  storeId: string;
  livemode: boolean;
  type: BalanceTransactionType;
  /** Centavos, positive in, negative out. */
  amountCents: number;
  paymentId: string;
  refundId: string | null;
  endToEndId: string;
  origin: RefundOrigin | null;
  nature: RefundNature | null;
  /** The PSP connection that moved it (its payment's mode). */
  connection: ModeName;
  /** When the money moved: the Pix's settlement at the PSP, or the refund's. */
  createdAt: Date;
}

/** A payment's own state: everything but what storage derives from it (the list's keys, the outbox). */
export type PaymentState = Omit<PaymentDoc, 'outbox' | 'listKey' | 'statusKey'>;

/**
 * A payment as the database may hold it: written before refunds were records of their own, it has
 * no `refunds`, `paidAt` or `cancelledAt`, and may have `refund` (read by refund-records.ts).
 */
export type StoredPayment = Omit<PaymentDoc, 'refunds' | 'paidAt' | 'cancelledAt'> &
  Partial<Pick<PaymentDoc, 'refunds' | 'paidAt' | 'cancelledAt'>> & { refund?: LegacyRefund | null };

/** A message in a payment's outbox: `at` is when its write stamped it, `by` the writer (the relay's index). */
export interface OutboxEntry extends OutboxMessage {
  at: Date;
  /** The process that wrote it (OutboxWriter); absent on messages stored before writers were named. */
  by?: string;
}

/**
 * A payments process as a writer of outboxes (outbox-writer.ts), as every replica reads it: it
 * says every few seconds how far its messages are published; one silent for long is taken for dead,
 * and another publishes what it left and marks it gone (kept, since its messages stay in payments).
 */
export interface OutboxWriterDoc {
  _id: string;
  /** Every message it stamped before this instant is published. */
  publishedThrough: Date;
  /** When it last said so. */
  seenAt: Date;
  /** Another replica published what it left (or it stopped with nothing owed): all its messages are published. */
  gone: boolean;
}

const PaymentSchema = new Schema<StoredPayment>(
  {
    _id: { type: String, required: true },
    storeId: { type: String, required: true },
    livemode: { type: Boolean },
    status: { type: String, required: true },
    amountCents: { type: Number, required: true },
    email: { type: String, default: null },
    observation: { type: String, default: null },
    webhookUrl: { type: String, default: null },
    isPublic: { type: Boolean, required: true },
    createdAt: { type: Date, required: true },
    listKey: { type: String, required: true },
    statusKey: { type: String, required: true },
    txid: { type: String, required: true },
    qrCodeUrl: { type: String, default: null },
    qrCopyPaste: { type: String, default: null },
    chargeCreated: { type: Boolean, required: true },
    expiresAt: { type: Date, required: true },
    paidEndToEndId: { type: String, default: null },
    paidAmountCents: { type: Number, default: null },
    paidAt: { type: Date, default: null },
    deadlineAt: { type: Date, default: null },
    refundReason: { type: String, default: null },
    refunds: { type: Schema.Types.Mixed, default: [] },
    cancelledAt: { type: Date, default: null },
    refund: { type: Schema.Types.Mixed, default: undefined },
    dispute: { type: Schema.Types.Mixed, default: undefined },
    eventSeq: { type: Number, required: true },
    rev: { type: Number, required: true },
    outbox: { type: Schema.Types.Mixed, default: [] },
  },
  { collection: 'payments', versionKey: false, minimize: false, strict: true },
);

// The list: a store's payments, newest first, optionally by status (list-page.ts).
PaymentSchema.index({ listKey: 1 });
PaymentSchema.index({ statusKey: 1 });
// The PSP speaks of charges by txid.
PaymentSchema.index({ txid: 1 }, { unique: true });
// The outbox relay: a writer's messages since an instant (an array: one key per entry).
PaymentSchema.index({ 'outbox.by': 1, 'outbox.at': 1 });
// A store's open disputes (the dashboard's Contestações): few, so the store and the status suffice.
// Only the disputed payments are in it: a create writes no entry (an index entry is a share of an
// insert's cost on the engine), and both queries name a status, which implies the filter.
PaymentSchema.index(
  { storeId: 1, 'dispute.status': 1 },
  { partialFilterExpression: { 'dispute.status': { $exists: true } } },
);

export const PaymentModel = mongoose.model<StoredPayment>('Payment', PaymentSchema);

const OutboxWriterSchema = new Schema<OutboxWriterDoc>(
  {
    _id: { type: String, required: true },
    publishedThrough: { type: Date, required: true },
    seenAt: { type: Date, required: true },
    gone: { type: Boolean, required: true },
  },
  { collection: 'outbox_writers', versionKey: false, strict: true },
);
// The relay's look at the writers still alive, or thought to be.
OutboxWriterSchema.index({ gone: 1 });

export const OutboxWriterModel = mongoose.model<OutboxWriterDoc>('OutboxWriter', OutboxWriterSchema);

/** The driver's collection under the model, typed, for writes that need none of mongoose's casting. */
export function paymentsCollection(): mongo.Collection<StoredPayment> {
  return driverCollection(PaymentModel);
}
