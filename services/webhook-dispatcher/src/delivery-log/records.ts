import mongoose, { Schema } from 'mongoose';
import type { EventType, PaymentEvent, WebhookAttemptOutcome, WebhookDeliveryStatus } from '@pix/contracts';
import { driverCollection } from '@pix/runtime';

/**
 * What the delivery log holds: one document per event's delivery to its payment's webhookUrl,
 * with its attempts inside it (a run has at most as many as the retry schedule, a few runs at most),
 * so that claiming an attempt, recording its result and moving the delivery on are each one
 * command on one document, and reading an event with its attempts is one read.
 */

/** One attempt; pushed when it is claimed (the claim), completed when it ends. */
export interface AttemptEntry {
  run: number;
  attempt: number;
  /** `run:attempt`, what a result is recorded against. */
  key: string;
  at: Date;
  /**
   * Until when its claimant is known to be at it: the claimant extends it while its request lasts.
   * A claim without a result past this lost its claimant (the replica died), and the attempt is
   * made again under the next number.
   */
  leaseUntil: Date;
  /** Null while in flight, or for good when the replica stopped before recording the result. */
  outcome: WebhookAttemptOutcome | null;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  /** After a failure with attempts left: when the next one is due (so a redo schedules the same). */
  nextAttemptAt: Date | null;
}

export interface DeliveryDoc {
  /** The event id: also the webhook-id of every attempt. */
  _id: string;
  paymentId: string;
  storeId: string;
  /** The event's mode (its body's livemode); absent on deliveries recorded before modes, all test ones. */
  livemode?: boolean;
  /** The event's type, top level so that the Events API filters on it by equality. */
  type: EventType;
  sequence: number;
  event: PaymentEvent;
  url: string;
  status: WebhookDeliveryStatus;
  /** 1 for the first delivery; each replay starts the next run with its attempts counted from 1. */
  run: number;
  /** Attempts of this run claimed so far: attempt n is claimed by moving this from n - 1 to n. */
  claimed: number;
  /**
   * Attempts of this run whose result is recorded (the last one's number, so recording it again
   * changes nothing), and of the runs before it: the Events API's count.
   */
  runAttempts: number;
  earlierRunsAttempts: number;
  attempts: AttemptEntry[];
  /** When the next attempt is due, as last scheduled (informative: the JetStream message decides). */
  nextAttemptAt: Date | null;
  /**
   * While pending: when the stall check looks at it, a while after its next attempt was due; each
   * step of the delivery moves it on. Null once finished.
   */
  checkAt: Date | null;
  /** How many times the stall check found it not moved on (its next look backs off with it). */
  stallChecks: number;
  /** A later event of the payment waits for this one to finish, to be woken when it does. */
  successorWaiting: boolean;
  deadReason: 'exhausted' | 'refused' | null;
  lastError: string | null;
  createdAt: Date;
  /** Finished deliveries leave the log after the retention (a TTL index); pending ones never do. */
  expiresAt: Date | null;
}

const DeliverySchema = new Schema<DeliveryDoc>(
  {
    _id: { type: String, required: true },
    paymentId: { type: String, required: true },
    storeId: { type: String, required: true },
    livemode: { type: Boolean },
    type: { type: String, required: true },
    sequence: { type: Number, required: true },
    event: { type: Schema.Types.Mixed, required: true },
    url: { type: String, required: true },
    status: { type: String, required: true },
    run: { type: Number, required: true },
    claimed: { type: Number, required: true },
    runAttempts: { type: Number, required: true },
    earlierRunsAttempts: { type: Number, required: true },
    attempts: { type: Schema.Types.Mixed, required: true },
    nextAttemptAt: { type: Date, default: null },
    checkAt: { type: Date, default: null },
    stallChecks: { type: Number, default: 0 },
    successorWaiting: { type: Boolean, default: false },
    deadReason: { type: String, default: null },
    lastError: { type: String, default: null },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
  },
  { collection: 'webhook_deliveries', versionKey: false, minimize: false, strict: true, autoIndex: false },
);
// A payment's deliveries: the order check, holding behind the earlier ones, `webhooks list`.
DeliverySchema.index({ paymentId: 1 });
// A store's events, newest first, of every type or of one (the Events API's two list shapes; with
// a paymentId the index above finds the few).
DeliverySchema.index({ storeId: 1, createdAt: -1, _id: -1 });
DeliverySchema.index({ storeId: 1, type: 1, createdAt: -1, _id: -1 });
// The stall check's due looks (null, and not looked at, once a delivery is finished).
DeliverySchema.index({ checkAt: 1 });
// Finished deliveries leave after the retention, their attempts with them (null while pending: never).
DeliverySchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/** The schema, for its indexes; the log's commands go through the driver's collection (deliveries()). */
export const DeliveryModel = mongoose.model<DeliveryDoc>('WebhookDelivery', DeliverySchema);

/**
 * The collection itself. Every document is built whole here, so mongoose's casting and validation
 * would only cost time on the dispatcher's hottest path.
 */
export function deliveries() {
  return driverCollection(DeliveryModel);
}

export function attemptKey(run: number, attempt: number): string {
  return `${run}:${attempt}`;
}

/** The attempt's id across runs and replicas: the message id of its attempt message. */
export function attemptId(eventId: string, run: number, attempt: number): string {
  return `${eventId}:${run}:${attempt}`;
}
