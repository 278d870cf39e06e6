import mongoose, { Schema } from 'mongoose';
import type { PaymentEvent, WebhookAttemptOutcome, WebhookDeliveryStatus } from '@pix/contracts';

/**
 * One event's delivery to its payment's webhookUrl. It is written when the event is consumed and
 * then drives every attempt: the stream message is acked at once, and retries are scheduled from
 * here (nextAttemptAt), so a slow endpoint holds nothing on the JetStream consumer.
 */
export interface DeliveryDoc {
  /** The event id: also the webhook-id of every attempt. */
  _id: string;
  paymentId: string;
  storeId: string;
  sequence: number;
  event: PaymentEvent;
  url: string;
  /** The URL's origin: the unit of per-endpoint concurrency and of the in-flight metric. */
  origin: string;
  status: WebhookDeliveryStatus;
  /** 1 for the first delivery; each replay starts the next run with its attempts counted from 0. */
  run: number;
  /** Attempts claimed in this run. A claim increments it, so it also versions the document. */
  attempts: number;
  /** When the next attempt is due. While an attempt is in flight: when its claim lapses. */
  nextAttemptAt: Date | null;
  /** Deferred only because an earlier event of the payment is still pending. */
  heldForOrder: boolean;
  deadReason: 'exhausted' | 'refused' | null;
  lastError: string | null;
  /** When the dead letter reached the dead-letter stream (null while still to publish). */
  deadLetteredAt: Date | null;
  createdAt: Date;
  /** Finished deliveries leave the log after the retention; pending ones never do. */
  expiresAt: Date | null;
}

/** One attempt in the delivery log; written when the attempt is claimed, completed when it ends. */
export interface AttemptDoc {
  /** eventId:run:attempt: unique, so that only one replica can claim an attempt. */
  _id: string;
  eventId: string;
  paymentId: string;
  run: number;
  attempt: number;
  at: Date;
  /** Null while in flight, or for good when the replica stopped before recording the result. */
  outcome: WebhookAttemptOutcome | null;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  expiresAt: Date;
}

const DeliverySchema = new Schema<DeliveryDoc>(
  {
    _id: { type: String, required: true },
    paymentId: { type: String, required: true },
    storeId: { type: String, required: true },
    sequence: { type: Number, required: true },
    event: { type: Schema.Types.Mixed, required: true },
    url: { type: String, required: true },
    origin: { type: String, required: true },
    status: { type: String, required: true },
    run: { type: Number, required: true },
    attempts: { type: Number, required: true },
    nextAttemptAt: { type: Date, default: null },
    heldForOrder: { type: Boolean, default: false },
    deadReason: { type: String, default: null },
    lastError: { type: String, default: null },
    deadLetteredAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
  },
  { collection: 'webhook_deliveries', versionKey: false, minimize: false, strict: true },
);
// Due attempts; a payment's events in order; dead letters still to publish.
DeliverySchema.index({ status: 1, nextAttemptAt: 1 });
DeliverySchema.index({ paymentId: 1, sequence: 1 });
DeliverySchema.index({ status: 1, deadLetteredAt: 1 });

const AttemptSchema = new Schema<AttemptDoc>(
  {
    _id: { type: String, required: true },
    eventId: { type: String, required: true },
    paymentId: { type: String, required: true, index: true },
    run: { type: Number, required: true },
    attempt: { type: Number, required: true },
    at: { type: Date, required: true },
    outcome: { type: String, default: null },
    statusCode: { type: Number, default: null },
    latencyMs: { type: Number, default: null },
    error: { type: String, default: null },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'webhook_attempts', versionKey: false, strict: true },
);

export const DeliveryModel = mongoose.model<DeliveryDoc>('WebhookDelivery', DeliverySchema);
export const AttemptModel = mongoose.model<AttemptDoc>('WebhookAttempt', AttemptSchema);

/** MongoDB's duplicate key error: the document is already there. */
export function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/**
 * Records a consumed event's delivery, its first attempt due after `firstDelayMs` (the schedule's
 * first entry), once: a redelivered stream message finds it already there and changes nothing.
 * Returns false when there is nothing to deliver (no webhookUrl) or it was already recorded.
 */
export async function recordDelivery(event: PaymentEvent, firstDelayMs: number, now = new Date()): Promise<boolean> {
  const url = event.body.webhookUrl;
  if (!url) return false;
  try {
    await DeliveryModel.create({
      _id: event.eventId,
      paymentId: event.body.id,
      storeId: event.body.storeId,
      sequence: event.sequence,
      event,
      url,
      origin: originOf(url),
      status: 'pending',
      run: 1,
      attempts: 0,
      nextAttemptAt: new Date(now.getTime() + firstDelayMs),
      createdAt: now,
    });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
