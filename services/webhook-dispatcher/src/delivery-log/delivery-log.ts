import type { PaymentEvent } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { isDuplicateKey, syncIndexes } from '@pix/runtime';
import { concluded, earlierOf, HOLDS_LATER_EVENTS, newClaim, newDelivery, nextAttemptOf, replayed } from './documents';
import { attemptKey, DeliveryModel, deliveries, type AttemptEntry, type DeliveryDoc } from './records';

/** How long the log keeps what it records, and when the stall check looks at a pending delivery. */
export interface DeliveryLogSettings {
  /** How long finished deliveries stay in the log (WEBHOOK_LOG_RETENTION). */
  retentionMs: number;
  /** How long after its next attempt was due a pending delivery is looked at (WEBHOOK_STALL_AFTER). */
  stallAfterMs: number;
  /** How long a claim holds without its claimant extending it (see AttemptEntry.leaseUntil). */
  leaseMs: number;
}

/** How an attempt ended, as recorded. */
export type AttemptResult = Pick<AttemptEntry, 'statusCode' | 'latencyMs' | 'error'> & {
  outcome: NonNullable<AttemptEntry['outcome']>;
};

/** What follows a recorded result: delivered, another attempt at a time, or dead (dead-lettered). */
export type Conclusion =
  | { next: 'delivered' }
  | { next: 'retry'; at: Date }
  | { next: 'dead'; reason: NonNullable<DeliveryDoc['deadReason']> };

/** A payment's deliveries before one of its events: how many are recorded, and how many still pending. */
export interface EarlierDeliveries {
  recorded: number;
  pending: number;
  /**
   * The earliest pending one, when all it waits for is its next retry (its last attempt failed):
   * its event, and when that attempt was made. Null otherwise (none pending, or the earliest is
   * held itself, or in flight).
   */
  waitingForRetry: { eventId: string; failedAttemptAt: Date } | null;
}

/**
 * Whether an event before `sequence` is not recorded yet: a payment's events are numbered from 1
 * without a gap, so all are recorded when `sequence - 1` are.
 */
export function someNotRecorded(earlier: EarlierDeliveries, sequence: number): boolean {
  return earlier.recorded < sequence - 1;
}

/** One attempt of one run of an event's delivery. */
export interface AttemptTarget {
  eventId: string;
  run: number;
  attempt: number;
}

/** What recording a result did: `recorded` unless the attempt was made again since. */
export interface Concluded {
  recorded: boolean;
  /** A later event of the payment waits for this delivery to finish (it is woken by the caller). */
  successorWaiting: boolean;
}

/** The claim of one attempt, as the log holds it (null: never claimed). */
export type Claim = Pick<AttemptEntry, 'at' | 'leaseUntil' | 'outcome' | 'statusCode' | 'latencyMs' | 'error'> & {
  nextAttemptAt: Date | null;
};

/**
 * The delivery log's writes, for the attempt protocol (attempts.ts): record a delivery, claim an
 * attempt, record how it ended, hold a later event behind an earlier one, start a replay, and the
 * stall check's looks. Each is one command on one delivery (the holds: on one payment's few), and
 * every filter is served by an index of the schema (tests/service/hot-queries-explain.test.ts).
 * The log records what happened; JetStream messages carry what happens next.
 */
export class DeliveryLog {
  constructor(private readonly settings: DeliveryLogSettings) {}

  /** Creates the schema's indexes (syncIndexes keeps them as declared on every start). */
  static async open(settings: DeliveryLogSettings, logger?: Logger): Promise<DeliveryLog> {
    await syncIndexes([DeliveryModel], logger);
    return new DeliveryLog(settings);
  }

  /**
   * Records a consumed event's delivery once, with its first attempt claimed when `claimNow` (it is
   * made right away, by the caller). False when it was recorded already (a redelivered stream
   * message): nothing was written, and nothing claimed.
   */
  async record(event: PaymentEvent, url: string, firstAttemptAt: Date, claimNow: boolean, now = new Date()) {
    const doc = newDelivery(event, url, firstAttemptAt, claimNow, now, this.settings);
    try {
      await deliveries().insertOne(doc);
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /**
   * Claims attempt `attempt` of the run: it moves the run's claim count from the attempt before to
   * this one, so of any number of replicas exactly one claims it. False when it was claimed before
   * (or the delivery moved on: another run, finished).
   */
  async claim(target: AttemptTarget, now = new Date()): Promise<boolean> {
    const { eventId, run, attempt } = target;
    const result = await deliveries().updateOne(
      { _id: eventId, run, status: 'pending', claimed: attempt - 1 },
      { $set: { claimed: attempt }, $push: { attempts: newClaim(run, attempt, now, this.settings.leaseMs) } },
    );
    return result.modifiedCount === 1;
  }

  /**
   * The claim of an attempt as recorded (its time, its lease and, once it ended, its result), with
   * the delivery's current run; null when the delivery is not in the log.
   */
  async findClaim(eventId: string, run: number, attempt: number): Promise<{ run: number; claim: Claim | null } | null> {
    const doc = await deliveries().findOne({ _id: eventId }, { projection: { run: 1, attempts: 1 } });
    if (!doc) return null;
    return { run: doc.run, claim: doc.attempts.find((a) => a.key === attemptKey(run, attempt)) ?? null };
  }

  /** The claimant is still at the attempt: its claim holds until `until`. */
  async extendLease(eventId: string, run: number, attempt: number, until: Date): Promise<void> {
    await deliveries().updateOne(
      { _id: eventId, 'attempts.key': attemptKey(run, attempt) },
      { $set: { 'attempts.$.leaseUntil': until } },
    );
  }

  /**
   * Records how a claimed attempt ended and what follows, in one command: the attempt's result and
   * the delivery's state (delivered, the next attempt's time, or dead). Conditional on the attempt
   * being its run's latest claim, so neither a stale message of an older run nor the late result of
   * an attempt made again since can move the delivery back: `recorded` is false then, and what
   * follows is the later attempt's business.
   */
  async conclude(
    target: AttemptTarget,
    result: AttemptResult,
    conclusion: Conclusion,
    now = new Date(),
  ): Promise<Concluded> {
    const { eventId, run, attempt } = target;
    const before = await deliveries().findOneAndUpdate(
      { _id: eventId, run, claimed: attempt, 'attempts.key': attemptKey(run, attempt) },
      {
        $set: {
          'attempts.$.outcome': result.outcome,
          'attempts.$.statusCode': result.statusCode,
          'attempts.$.latencyMs': result.latencyMs,
          'attempts.$.error': result.error,
          'attempts.$.nextAttemptAt': nextAttemptOf(conclusion),
          ...concluded(attempt, result, conclusion, now, this.settings),
        },
      },
      { projection: { successorWaiting: 1 } },
    );
    return { recorded: before !== null, successorWaiting: before?.successorWaiting === true };
  }

  /**
   * The payment's deliveries before `sequence`: how many are recorded, and how many are still
   * pending in their first run (a replay, a later run, holds no later event: docs/webhooks.md).
   */
  async earlierDeliveries(paymentId: string, sequence: number): Promise<EarlierDeliveries> {
    const all = await deliveries()
      .find({ paymentId }, { projection: { sequence: 1, status: 1, run: 1, claimed: 1, runAttempts: 1, attempts: 1 } })
      .toArray();
    return earlierOf(all, sequence);
  }

  /** A delivery as the log holds it now, event and all. */
  delivery(eventId: string): Promise<DeliveryDoc | null> {
    return deliveries().findOne({ _id: eventId });
  }

  /** The payment's delivery of the event after `sequence` (the one a finishing delivery may wake). */
  successorOf(paymentId: string, sequence: number): Promise<DeliveryDoc | null> {
    return deliveries().findOne({ paymentId, sequence: sequence + 1 });
  }

  /**
   * A later event of the payment waits for the earlier ones still pending: they are marked, so that
   * the one that finishes wakes it. False when none is pending any more (they finished meanwhile:
   * the later event need not wait). Together with `conclude`, which reads the mark as it finishes a
   * delivery, one of the two always sees the other.
   */
  async waitBehind(paymentId: string, sequence: number): Promise<boolean> {
    const result = await deliveries().updateMany(
      { paymentId, sequence: { $lt: sequence }, ...HOLDS_LATER_EVENTS },
      { $set: { successorWaiting: true } },
    );
    return result.matchedCount > 0;
  }

  /**
   * Starts the next run of a finished delivery, conditionally on the delivery as read: false when it
   * is not as read any more (another replay got there first, or it is pending).
   */
  async startReplay(doc: DeliveryDoc, now = new Date()): Promise<boolean> {
    const result = await deliveries().updateOne(
      { _id: doc._id, status: doc.status, run: doc.run },
      { $set: replayed(doc, now, this.settings) },
    );
    return result.modifiedCount === 1;
  }

  /** Pending deliveries whose stall check is due by `now`, at most `limit` (a range on the check's index). */
  dueForCheck(now: Date, limit: number): Promise<DeliveryDoc[]> {
    return deliveries()
      .find({ checkAt: { $lte: now } })
      .limit(limit)
      .toArray();
  }

  /**
   * Moves a pending delivery's stall check on to `checkAt`, after the check found it not moved on;
   * conditional on the check it found, so a step recorded meanwhile (which moved the check itself)
   * is kept. False when that happened: the delivery did move on.
   */
  async postponeCheck(doc: DeliveryDoc, checkAt: Date): Promise<boolean> {
    const result = await deliveries().updateOne(
      { _id: doc._id, run: doc.run, status: 'pending', checkAt: doc.checkAt },
      { $set: { checkAt, stallChecks: doc.stallChecks + 1 } },
    );
    return result.modifiedCount === 1;
  }
}

/**
 * The log's protocol as the attempt runner, the stall check and replays use it: DeliveryLog on the
 * database, InMemoryDeliveryLog (testing/) in unit tests; both keep the cases of
 * testing/delivery-log-contract.ts.
 */
export type DeliveryLogProtocol = Pick<DeliveryLog, keyof DeliveryLog>;
