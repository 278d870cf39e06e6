import { withTraceCarrier, type JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { bucketsBetween, Periodic, UTC_MINUTE } from '@pix/runtime';
import { firstAttempt, publishAttemptNow } from './attempt-messages';
import {
  deliveriesToCheck,
  minuteOf,
  postponeCheck,
  recordSweptThrough,
  sweptThrough,
  type DeliveryDoc,
} from './delivery-log';
import type { DispatcherMetrics } from './metrics';

/** With no record of an earlier check (a new log), it starts this far back. */
const FIRST_LOOK_BACK_MINUTES = 60;
/** Minutes looked at per pass at most: a dispatcher back from a long stop catches up over a few passes. */
const MINUTES_PER_PASS = 120;
/** A delivery found not moved on again is looked at after twice as long each time, up to this. */
const MAX_RECHECK_MS = 6 * 60 * 60 * 1000;

/** When a delivery found not moved on `checks` times before is looked at next. */
export function recheckDelay(stallAfterMs: number, checks: number): number {
  return Math.min(stallAfterMs * 2 ** Math.min(checks + 1, 20), MAX_RECHECK_MS);
}

/**
 * The safety net under the attempt messages. Every step of a delivery is carried by a JetStream
 * message, and each step moves the delivery's `checkOn` to a minute a while after its next step is
 * due. A delivery still pending when its minute has passed has lost its message (a scheduled
 * message that never fired, a publish lost in a cluster's leader change): its next attempt is
 * published again. The attempt claims make that safe when the message was only late: the attempt
 * is made once, and one found made is recorded again instead. A delivery held behind an earlier
 * event of its payment goes back to its hold; one found not moved on again is looked at after twice
 * as long each time.
 *
 * The cost follows the work: one equality read per minute that passed (served by the `checkOn`
 * index), plus one write per minute to remember how far it looked, and nothing per delivery that
 * is on time. Every replica runs it; two publishing the same attempt publish one message (its id)
 * or make it once (its claim).
 */
export class StallSweep extends Periodic {
  private through: string | null = null;

  constructor(
    private readonly js: JetStreamClient,
    private readonly stallAfterMs: number,
    intervalMs: number,
    private readonly logger: Logger,
    private readonly metrics: DispatcherMetrics,
  ) {
    super(intervalMs, (err) => logger.error({ err, task: 'stall check' }, 'background pass failed'));
  }

  /** Outside any trace: a sweep is nobody's request. */
  protected run(): Promise<void> {
    return withTraceCarrier(undefined, () => this.sweep());
  }

  private async sweep(now = new Date()): Promise<void> {
    // Only minutes that have passed: one still going may get more deliveries.
    const lastPassed = minuteOf(new Date(now.getTime() - UTC_MINUTE.ms));
    this.through ??=
      (await sweptThrough()) ?? minuteOf(new Date(now.getTime() - FIRST_LOOK_BACK_MINUTES * UTC_MINUTE.ms));
    const minutes = bucketsBetween(UTC_MINUTE, this.through, lastPassed, MINUTES_PER_PASS);
    for (const minute of minutes) {
      for (const doc of await deliveriesToCheck(minute)) await this.publishAgain(doc, now);
      this.through = minute;
    }
    if (minutes.length > 0) await recordSweptThrough(this.through);
  }

  private async publishAgain(doc: DeliveryDoc, now: Date): Promise<void> {
    const checks = doc.stallChecks ?? 0;
    // Moved on first: a pass that fails after this looks at it again at that minute, not never.
    await postponeCheck(doc, minuteOf(new Date(now.getTime() + recheckDelay(this.stallAfterMs, checks))));
    const attempt = (doc.runAttempts ?? 0) + 1;
    await publishAttemptNow(this.js, { ...firstAttempt(doc.event, doc.url, doc.run), attempt }, checks + 1);
    this.metrics.stalled.inc();
    this.logger.warn(
      { eventId: doc._id, paymentId: doc.paymentId, run: doc.run, attempt, nextAttemptAt: doc.nextAttemptAt, checks },
      'a pending webhook delivery did not move on; its next attempt is published again',
    );
  }
}
