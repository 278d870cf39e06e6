import type { PaymentEvent } from '@pix/contracts';
import type { AttemptResult, Conclusion, DeliveryLogSettings, EarlierDeliveries } from './delivery-log';
import { attemptKey, type AttemptEntry, type DeliveryDoc } from './records';

/**
 * What the log's writes put in a delivery, built once for DeliveryLog and for the unit tests'
 * in-memory log (testing/in-memory-delivery-log.ts), so that the two cannot differ in what they
 * store, only in how they store it.
 */

/** A consumed event's delivery as first recorded, its first attempt claimed when `claimNow`. */
export function newDelivery(
  event: PaymentEvent,
  url: string,
  firstAttemptAt: Date,
  claimNow: boolean,
  now: Date,
  settings: DeliveryLogSettings,
): DeliveryDoc {
  return {
    _id: event.eventId,
    paymentId: event.paymentId,
    storeId: event.storeId,
    livemode: event.body.livemode,
    type: event.body.event,
    sequence: event.sequence,
    event,
    url,
    status: 'pending',
    run: 1,
    claimed: claimNow ? 1 : 0,
    runAttempts: 0,
    earlierRunsAttempts: 0,
    attempts: claimNow ? [newClaim(1, 1, now, settings.leaseMs)] : [],
    nextAttemptAt: firstAttemptAt,
    ...checkAfter(firstAttemptAt, settings),
    successorWaiting: false,
    deadReason: null,
    lastError: null,
    createdAt: now,
    expiresAt: null,
  };
}

/** A new claim: the attempt in flight, held for a lease its claimant extends while it lasts. */
export function newClaim(run: number, attempt: number, now: Date, leaseMs: number): AttemptEntry {
  return {
    run,
    attempt,
    key: attemptKey(run, attempt),
    at: now,
    leaseUntil: new Date(now.getTime() + leaseMs),
    outcome: null,
    statusCode: null,
    latencyMs: null,
    error: null,
    nextAttemptAt: null,
  };
}

/** The stall check's fields for a delivery whose next step is due at `dueAt`. */
export function checkAfter(dueAt: Date, settings: DeliveryLogSettings): Pick<DeliveryDoc, 'checkAt' | 'stallChecks'> {
  return { checkAt: new Date(dueAt.getTime() + settings.stallAfterMs), stallChecks: 0 };
}

/** When the next attempt is due after a conclusion: only a retry has one. */
export function nextAttemptOf(conclusion: Conclusion): Date | null {
  return conclusion.next === 'retry' ? conclusion.at : null;
}

/** The delivery's fields once attempt `attempt` ended with `result`, followed by `conclusion`. */
export function concluded(
  attempt: number,
  result: AttemptResult,
  conclusion: Conclusion,
  now: Date,
  settings: DeliveryLogSettings,
): Partial<DeliveryDoc> {
  const finished = { checkAt: null, stallChecks: 0, expiresAt: new Date(now.getTime() + settings.retentionMs) };
  const delivery =
    conclusion.next === 'retry'
      ? { ...checkAfter(conclusion.at, settings), lastError: result.error }
      : conclusion.next === 'delivered'
        ? { status: 'delivered' as const, lastError: null, ...finished }
        : { status: 'dead' as const, deadReason: conclusion.reason, lastError: result.error, ...finished };
  return { runAttempts: attempt, nextAttemptAt: nextAttemptOf(conclusion), ...delivery };
}

/** The delivery's fields as its next run starts (a replay of `doc`, finished as read). */
export function replayed(doc: DeliveryDoc, now: Date, settings: DeliveryLogSettings): Partial<DeliveryDoc> {
  return {
    status: 'pending',
    run: doc.run + 1,
    claimed: 0,
    runAttempts: 0,
    earlierRunsAttempts: doc.earlierRunsAttempts + doc.runAttempts,
    nextAttemptAt: now,
    ...checkAfter(now, settings),
    deadReason: null,
    lastError: null,
    expiresAt: null,
  };
}

/**
 * The deliveries a payment's later event waits behind, as a filter and as a test of one delivery:
 * those pending in their first run. A replay (a later run) is a new delivery of an old event and
 * holds no later one (docs/webhooks.md).
 */
export const HOLDS_LATER_EVENTS = { status: 'pending', run: 1 } as const;
export function holdsLaterEvents(doc: Pick<DeliveryDoc, 'status' | 'run'>): boolean {
  return doc.status === HOLDS_LATER_EVENTS.status && doc.run === HOLDS_LATER_EVENTS.run;
}

/** What a later event of a payment needs of its earlier deliveries (`docs`, read with these fields at least). */
export function earlierOf(
  docs: Pick<DeliveryDoc, '_id' | 'sequence' | 'status' | 'run' | 'claimed' | 'runAttempts' | 'attempts'>[],
  sequence: number,
): EarlierDeliveries {
  const earlier = docs.filter((d) => d.sequence < sequence);
  const pending = earlier.filter(holdsLaterEvents).sort((a, b) => a.sequence - b.sequence);
  const first = pending[0];
  const failedAttemptAt =
    first && first.claimed > 0 && first.runAttempts === first.claimed ? first.attempts.at(-1)?.at : undefined;
  return {
    recorded: earlier.length,
    pending: pending.length,
    waitingForRetry: first && failedAttemptAt ? { eventId: first._id, failedAttemptAt } : null,
  };
}
