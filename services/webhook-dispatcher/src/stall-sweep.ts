import { withTraceCarrier, type JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { advance, firstAttempt } from './attempt-messages';
import { someNotRecorded, type DeliveryDoc, type DeliveryLogProtocol } from './delivery-log';
import type { DispatcherMetrics } from './metrics';

/** Deliveries looked at per pass at most: a dispatcher back from a long stop catches up over a few passes. */
const CHECKS_PER_PASS = 500;
/** A delivery found not moved on again is looked at after twice as long each time, up to this. */
const MAX_RECHECK_MS = 6 * 60 * 60 * 1000;

/** When a delivery found not moved on `checks` times before is looked at next. */
export function recheckDelay(stallAfterMs: number, checks: number): number {
  return Math.min(stallAfterMs * 2 ** Math.min(checks + 1, 20), MAX_RECHECK_MS);
}

/**
 * The safety net under the attempt messages. Every step of a delivery is carried by a JetStream
 * message, and each step moves the delivery's `checkAt` to a while after its next step is due. A
 * delivery still pending when its `checkAt` has passed has lost its message (a scheduled message
 * that never fired, a publish lost in a cluster's leader change): its next attempt is published
 * again. The attempt claims make that safe when the message was only late: the attempt is made
 * once, and one found made is recorded again instead. One found not moved on again is looked at
 * after twice as long.
 *
 * A delivery held behind an earlier event of its payment still pending has lost nothing once that
 * event is marked to wake it when it finishes (the check marks it), and that event is itself
 * checked. It is looked at again later, and nothing is published: published, its attempt would only
 * be held again (a merchant's outage held over a hundred such events in a 30 s chaos run, each
 * published again once or twice, for nothing).
 *
 * The cost follows the work: one range read per pass on the `checkAt` index, which holds only what
 * is due, and nothing per delivery that is on time; a delivery never attempted first reads its
 * payment's earlier deliveries and marks those still pending (the index on the payment). Every
 * replica runs it; two publishing the same attempt publish one message (its id) or make it once
 * (its claim).
 */
export class StallSweep extends Periodic {
  constructor(
    private readonly js: JetStreamClient,
    private readonly log: DeliveryLogProtocol,
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
    for (const doc of await this.log.dueForCheck(now, CHECKS_PER_PASS)) await this.publishAgain(doc, now);
  }

  private async publishAgain(doc: DeliveryDoc, now: Date): Promise<void> {
    const checks = doc.stallChecks;
    // Moved on first: a pass that fails after this looks at it again then, not never; and a
    // delivery that moved on meanwhile (another replica, or its own step) is left alone.
    const next = new Date(now.getTime() + recheckDelay(this.stallAfterMs, checks));
    if (!(await this.log.postponeCheck(doc, next))) return;
    if (await this.heldBehindPending(doc)) {
      this.logger.debug(
        { eventId: doc._id, paymentId: doc.paymentId, checks },
        'a pending webhook delivery waits for an earlier event of its payment; looked at again later',
      );
      return;
    }
    const attempt = doc.runAttempts + 1;
    await advance(this.js, 'stall-check', { ...firstAttempt(doc, doc.run), attempt }, { stallLook: checks + 1 });
    this.metrics.stalled.inc();
    this.logger.warn(
      { eventId: doc._id, paymentId: doc.paymentId, run: doc.run, attempt, nextAttemptAt: doc.nextAttemptAt, checks },
      'a pending webhook delivery did not move on; its next attempt is published again',
    );
  }

  /**
   * Whether the delivery waits behind an earlier event of its payment still pending, all of them
   * recorded: only one of the payment's first run never attempted can (attempts.ts, holdBehind).
   * The pending ones are marked here, so that the one just before it wakes it as it ends: an event
   * held while a predecessor was not recorded yet was marked by nobody, and with its scheduled look
   * lost would otherwise wait for a check after they finished, each check further apart. With one
   * still not recorded no mark can wake it: its attempt is published again, and looks for it.
   */
  private async heldBehindPending(doc: DeliveryDoc): Promise<boolean> {
    if (doc.run !== 1 || doc.claimed !== 0) return false;
    const earlier = await this.log.earlierDeliveries(doc.paymentId, doc.sequence);
    if (someNotRecorded(earlier, doc.sequence) || earlier.pending === 0) return false;
    return this.log.waitBehind(doc.paymentId, doc.sequence);
  }
}
