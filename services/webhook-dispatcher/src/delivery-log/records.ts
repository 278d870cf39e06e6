import mongoose, { Schema } from 'mongoose';
import type {
  EventListQuery,
  EventType,
  PaymentEvent,
  WebhookAttemptOutcome,
  WebhookDeliveryStatus,
} from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { isDuplicateKey, syncIndexes } from '@pix/runtime';

/**
 * The delivery log in MongoDB: the one module that touches it (eslint keeps mongoose out of the
 * rest of the dispatcher). It is a record of what happened, not the driver of what happens next:
 * attempts are carried by JetStream messages; the one periodic read is the stall check's, of the
 * pending deliveries whose look is due (stall-sweep.ts). Every query is served by an index the
 * schemas declare (tests/storage/explain-events.test.ts proves it on the local engine), and
 * finished entries leave through TTL indexes on `expiresAt`.
 */

/** One event's delivery to its payment's webhookUrl. */
export interface DeliveryDoc {
  /** The event id: also the webhook-id of every attempt. */
  _id: string;
  paymentId: string;
  storeId: string;
  /** The event's type, top level so that the Events API filters on it by equality. */
  type: EventType;
  sequence: number;
  event: PaymentEvent;
  url: string;
  status: WebhookDeliveryStatus;
  /** 1 for the first delivery; each replay starts the next run with its attempts counted from 1. */
  run: number;
  /**
   * Attempts of this run whose result is recorded (the last one's number, so recording it again
   * changes nothing), and of the runs before it: the Events API's count without reading attempts.
   */
  runAttempts: number;
  earlierRunsAttempts: number;
  /** When the next attempt is due, as last scheduled (informative: the JetStream message decides). */
  nextAttemptAt: Date | null;
  /**
   * While pending: when the stall check looks at it, a while after its next attempt was due; each
   * step of the delivery moves it on. Null once finished.
   */
  checkAt: Date | null;
  /** How many times the stall check found it not moved on (its next look backs off with it). */
  stallChecks: number;
  deadReason: 'exhausted' | 'refused' | null;
  lastError: string | null;
  createdAt: Date;
  /** Finished deliveries leave the log after the retention (a TTL index); pending ones never do. */
  expiresAt: Date | null;
}

/** One attempt; inserted when it is claimed (its unique id is the claim), completed when it ends. */
export interface AttemptDoc {
  /** eventId:run:attempt: unique, so only one replica can make an attempt. */
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
  /** After a failure with attempts left: when the next one is due (so a redo schedules the same). */
  nextAttemptAt: Date | null;
  /** When it leaves the log (a TTL index). */
  expiresAt: Date;
}

export type AttemptResult = Pick<AttemptDoc, 'outcome' | 'statusCode' | 'latencyMs' | 'error'> & {
  outcome: WebhookAttemptOutcome;
};

const DeliverySchema = new Schema<DeliveryDoc>(
  {
    _id: { type: String, required: true },
    paymentId: { type: String, required: true },
    storeId: { type: String, required: true },
    // Deliveries recorded before the Events API have no type; the type filter does not find them.
    type: { type: String },
    sequence: { type: Number, required: true },
    event: { type: Schema.Types.Mixed, required: true },
    url: { type: String, required: true },
    status: { type: String, required: true },
    run: { type: Number, required: true },
    runAttempts: { type: Number, default: 0 },
    earlierRunsAttempts: { type: Number, default: 0 },
    nextAttemptAt: { type: Date, default: null },
    checkAt: { type: Date, default: null },
    stallChecks: { type: Number, default: 0 },
    deadReason: { type: String, default: null },
    lastError: { type: String, default: null },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
  },
  { collection: 'webhook_deliveries', versionKey: false, minimize: false, strict: true, autoIndex: false },
);
// A payment's deliveries: the predecessor check and `webhooks list`.
DeliverySchema.index({ paymentId: 1 });
// A store's events, newest first, of every type or of one (the Events API's two list shapes; with
// a paymentId the index above finds the few).
DeliverySchema.index({ storeId: 1, createdAt: -1, _id: -1 });
DeliverySchema.index({ storeId: 1, type: 1, createdAt: -1, _id: -1 });
// The stall check's due looks (null, and not looked at, once a delivery is finished).
DeliverySchema.index({ checkAt: 1 });
// Finished deliveries leave after the retention (null while pending: never).
DeliverySchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

const AttemptSchema = new Schema<AttemptDoc>(
  {
    _id: { type: String, required: true },
    eventId: { type: String, required: true },
    paymentId: { type: String, required: true },
    run: { type: Number, required: true },
    attempt: { type: Number, required: true },
    at: { type: Date, required: true },
    outcome: { type: String, default: null },
    statusCode: { type: Number, default: null },
    latencyMs: { type: Number, default: null },
    error: { type: String, default: null },
    nextAttemptAt: { type: Date, default: null },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'webhook_attempts', versionKey: false, strict: true, autoIndex: false },
);
// A payment's attempts: `webhooks list`; an event's: the Events API.
AttemptSchema.index({ paymentId: 1 });
AttemptSchema.index({ eventId: 1 });
AttemptSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

const DeliveryModel = mongoose.model<DeliveryDoc>('WebhookDelivery', DeliverySchema);
const AttemptModel = mongoose.model<AttemptDoc>('WebhookAttempt', AttemptSchema);

/** How long finished deliveries and attempts stay in the log (WEBHOOK_LOG_RETENTION). */
let retentionMs = 30 * 24 * 60 * 60 * 1000;
/** How long after its next attempt was due a pending delivery is looked at (WEBHOOK_STALL_AFTER). */
let stallAfterMs = 2 * 60 * 1000;

/**
 * Prepares the log for this process: its settings, and the schemas' indexes (syncIndexes keeps
 * them as declared on every start).
 */
export async function openDeliveryLog(
  options: { retentionMs: number; stallAfterMs: number },
  logger?: Logger,
): Promise<void> {
  retentionMs = options.retentionMs;
  stallAfterMs = options.stallAfterMs;
  await syncIndexes([DeliveryModel, AttemptModel], logger);
}

function expiringFrom(now: Date): { expiresAt: Date } {
  return { expiresAt: new Date(now.getTime() + retentionMs) };
}

/** The stall check's fields for a delivery whose next step is due at `dueAt`. */
function checkAfter(dueAt: Date): Pick<DeliveryDoc, 'checkAt' | 'stallChecks'> {
  return { checkAt: new Date(dueAt.getTime() + stallAfterMs), stallChecks: 0 };
}

/** A finished delivery is not looked at any more. */
const NO_CHECK: Pick<DeliveryDoc, 'checkAt' | 'stallChecks'> = { checkAt: null, stallChecks: 0 };

export function attemptId(eventId: string, run: number, attempt: number): string {
  return `${eventId}:${run}:${attempt}`;
}

/**
 * Records a consumed event's delivery once. False when it was already recorded (a redelivered
 * stream message): the caller still makes sure its first attempt is on its way.
 */
export async function recordDelivery(
  event: PaymentEvent,
  url: string,
  firstAttemptAt: Date,
  now = new Date(),
): Promise<boolean> {
  try {
    await DeliveryModel.create({
      _id: event.eventId,
      paymentId: event.body.id,
      storeId: event.body.storeId,
      type: event.body.event,
      sequence: event.sequence,
      event,
      url,
      status: 'pending',
      run: 1,
      runAttempts: 0,
      earlierRunsAttempts: 0,
      nextAttemptAt: firstAttemptAt,
      ...checkAfter(firstAttemptAt),
      createdAt: now,
      expiresAt: null,
    });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** The payment's deliveries before `sequence`: how many are recorded, and which are still pending. */
export async function earlierDeliveries(
  paymentId: string,
  sequence: number,
): Promise<{ recorded: number; pending: { nextAttemptAt: Date | null }[] }> {
  const all = await DeliveryModel.find({ paymentId })
    .select({ sequence: 1, status: 1, nextAttemptAt: 1 })
    .lean<Pick<DeliveryDoc, 'sequence' | 'status' | 'nextAttemptAt'>[]>();
  const earlier = all.filter((d) => d.sequence < sequence);
  return { recorded: earlier.length, pending: earlier.filter((d) => d.status === 'pending') };
}

/**
 * Claims an attempt by inserting its log entry under its unique id: exactly one insert succeeds, so
 * any number of replicas never make one attempt twice. The entry is the attempt's record anyway,
 * so one command both records and claims it. False when it was claimed already.
 */
export async function claimAttempt(
  target: { eventId: string; paymentId: string; run: number; attempt: number },
  now = new Date(),
): Promise<boolean> {
  try {
    await AttemptModel.create({
      _id: attemptId(target.eventId, target.run, target.attempt),
      eventId: target.eventId,
      paymentId: target.paymentId,
      run: target.run,
      attempt: target.attempt,
      at: now,
      ...expiringFrom(now),
    });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** A claimed attempt as recorded: its claim time and, once it ended, its result. */
export function findAttempt(
  eventId: string,
  run: number,
  attempt: number,
): Promise<Pick<AttemptDoc, 'at' | 'outcome' | 'statusCode' | 'latencyMs' | 'error' | 'nextAttemptAt'> | null> {
  return AttemptModel.findById(attemptId(eventId, run, attempt))
    .lean<Pick<AttemptDoc, 'at' | 'outcome' | 'statusCode' | 'latencyMs' | 'error' | 'nextAttemptAt'>>()
    .exec();
}

/** Completes an attempt's log entry with its result (and the next attempt's time, if one follows). */
export async function recordAttemptResult(
  eventId: string,
  run: number,
  attempt: number,
  result: AttemptResult,
  nextAttemptAt: Date | null,
): Promise<void> {
  await AttemptModel.updateOne(
    { _id: attemptId(eventId, run, attempt) },
    { $set: { ...pickResult(result), nextAttemptAt } },
  );
}

function pickResult(result: AttemptResult): AttemptResult {
  return { outcome: result.outcome, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
}

/**
 * The run's delivery ended with a 2xx at its `attempt`-th attempt. Conditional on the run, so a
 * stale message of an older run cannot touch a replay.
 */
export async function markDelivered(eventId: string, run: number, attempt: number, now = new Date()): Promise<void> {
  await DeliveryModel.updateOne(
    { _id: eventId, run },
    {
      $set: {
        status: 'delivered',
        runAttempts: attempt,
        nextAttemptAt: null,
        lastError: null,
        ...NO_CHECK,
        ...expiringFrom(now),
      },
    },
  );
}

export async function markRetrying(
  eventId: string,
  run: number,
  attempt: number,
  nextAttemptAt: Date,
  lastError: string | null,
) {
  await DeliveryModel.updateOne(
    { _id: eventId, run, status: 'pending' },
    { $set: { runAttempts: attempt, nextAttemptAt, lastError, ...checkAfter(nextAttemptAt) } },
  );
}

export async function markDead(
  eventId: string,
  run: number,
  attempt: number,
  deadReason: 'exhausted' | 'refused',
  lastError: string | null,
  now = new Date(),
): Promise<void> {
  await DeliveryModel.updateOne(
    { _id: eventId, run },
    {
      $set: {
        status: 'dead',
        runAttempts: attempt,
        deadReason,
        lastError,
        nextAttemptAt: null,
        ...NO_CHECK,
        ...expiringFrom(now),
      },
    },
  );
}

export function findDelivery(eventId: string): Promise<DeliveryDoc | null> {
  return DeliveryModel.findById(eventId).lean<DeliveryDoc>().exec();
}

/**
 * Starts the next run of a finished delivery, conditionally on the delivery as read: false when it
 * is not as read any more (another replay got there first, or it is pending).
 */
export async function startReplay(doc: DeliveryDoc, now = new Date()): Promise<boolean> {
  const result = await DeliveryModel.updateOne(
    { _id: doc._id, status: doc.status, run: doc.run },
    {
      $set: {
        status: 'pending',
        run: doc.run + 1,
        runAttempts: 0,
        earlierRunsAttempts: (doc.earlierRunsAttempts ?? 0) + (doc.runAttempts ?? 0),
        nextAttemptAt: now,
        ...checkAfter(now),
        deadReason: null,
        lastError: null,
        expiresAt: null,
      },
    },
  );
  return result.modifiedCount === 1;
}

/** A payment's deliveries in event order, each with its attempts in order (a payment has a few of each). */
export async function deliveriesOf(paymentId: string): Promise<(DeliveryDoc & { attempts: AttemptDoc[] })[]> {
  const [deliveries, attempts] = await Promise.all([
    DeliveryModel.find({ paymentId }).sort({ sequence: 1 }).lean<DeliveryDoc[]>(),
    AttemptModel.find({ paymentId }).sort({ run: 1, attempt: 1 }).lean<AttemptDoc[]>(),
  ]);
  return deliveries.map((doc) => ({ ...doc, attempts: attempts.filter((a) => a.eventId === doc._id) }));
}

/** One store's delivery of an event; another store's, or none, is null (the same answer). */
export function findStoreDelivery(storeId: string, eventId: string): Promise<DeliveryDoc | null> {
  return DeliveryModel.findOne({ _id: eventId, storeId }).lean<DeliveryDoc>().exec();
}

/**
 * A page of a store's events, newest first (recorded, then id, descending), and how many match:
 * two commands, each an equality filter on the store (and the type or payment). MongoDB sorts with
 * the compound indexes; FerretDB finds the store's deliveries by its index and sorts in Go.
 */
export async function storeDeliveries(
  storeId: string,
  query: EventListQuery,
): Promise<{ docs: DeliveryDoc[]; total: number }> {
  const filter = {
    storeId,
    ...(query.type ? { type: query.type } : {}),
    ...(query.paymentId ? { paymentId: query.paymentId } : {}),
  };
  const [docs, total] = await Promise.all([
    DeliveryModel.find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .lean<DeliveryDoc[]>(),
    DeliveryModel.countDocuments(filter),
  ]);
  return { docs, total };
}

/** An event's attempts in order. */
export function attemptsOfEvent(eventId: string): Promise<AttemptDoc[]> {
  return AttemptModel.find({ eventId }).sort({ run: 1, attempt: 1 }).lean<AttemptDoc[]>().exec();
}

/** Pending deliveries whose stall check is due by `now`, at most `limit` (a range on the check's index). */
export function deliveriesToCheck(now: Date, limit: number): Promise<DeliveryDoc[]> {
  return DeliveryModel.find({ checkAt: { $lte: now } })
    .limit(limit)
    .lean<DeliveryDoc[]>()
    .exec();
}

/**
 * Moves a pending delivery's stall check on to `checkAt`, after the check found it not moved on;
 * conditional on the check it found, so a step recorded meanwhile (which moved the check itself)
 * is kept. False when that happened: the delivery did move on.
 */
export async function postponeCheck(doc: DeliveryDoc, checkAt: Date): Promise<boolean> {
  const result = await DeliveryModel.updateOne(
    { _id: doc._id, run: doc.run, status: 'pending', checkAt: doc.checkAt },
    { $set: { checkAt, stallChecks: (doc.stallChecks ?? 0) + 1 } },
  );
  return result.modifiedCount === 1;
}

/** A delivery's fields the dashboard's summaries read. */
export type DeliverySummary = Pick<
  DeliveryDoc,
  'paymentId' | 'url' | 'status' | 'runAttempts' | 'earlierRunsAttempts' | 'lastError'
>;
const SUMMARY_FIELDS = { paymentId: 1, url: 1, status: 1, runAttempts: 1, earlierRunsAttempts: 1, lastError: 1 };

/**
 * The deliveries of some of a store's payments (one page of the dashboard's list, at most a few
 * hundred ids): an `$in` on the payment index, each payment having a few deliveries.
 */
export function deliveriesOfPayments(storeId: string, paymentIds: string[]): Promise<DeliverySummary[]> {
  if (paymentIds.length === 0) return Promise.resolve([]);
  return DeliveryModel.find({ paymentId: { $in: paymentIds }, storeId })
    .select(SUMMARY_FIELDS)
    .lean<DeliverySummary[]>()
    .exec();
}

/**
 * A store's deliveries recorded since `since`, newest first, at most `limit` (the dashboard's
 * failure rates over 24 h): a range on `{storeId, createdAt, _id}`, bounded, so a busy store costs
 * one read of at most `limit` small documents.
 */
export function storeDeliveriesSince(storeId: string, since: Date, limit: number): Promise<DeliverySummary[]> {
  return DeliveryModel.find({ storeId, createdAt: { $gte: since } })
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit)
    .select(SUMMARY_FIELDS)
    .lean<DeliverySummary[]>()
    .exec();
}
