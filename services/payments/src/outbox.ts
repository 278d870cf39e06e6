import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Subjects, type PaymentEvent, type PaymentStatus } from '@pix/contracts';
import { jetstream, publishEvent, traceCarrier, withTraceCarrier } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { PaymentModel, type OutboxEntry, type PaymentDoc } from './model';
import { withPaymentLock } from './payment-lock';
import { toPayment } from './presenter';

/**
 * Builds the outbox entry for an event about `doc` as it is after the change. The entry is written
 * in the same document update as the change itself, which is what makes the event impossible to
 * lose: either both are stored or neither is.
 */
export function outboxEntry(
  doc: PaymentDoc,
  sequence: number,
  previousStatus: PaymentStatus | null,
): { eventId: string; entry: OutboxEntry } {
  const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
  const { isPublic: _internalOnly, ...data } = toPayment(doc);
  const body: PaymentEvent['body'] =
    previousStatus === null
      ? { event: 'payment.created', ...data }
      : { event: 'payment.status_changed', ...data, previousStatus };
  const event: PaymentEvent = { eventId, occurredAt: new Date().toISOString(), sequence, body };
  const subject = Subjects.paymentEvent(previousStatus === null ? 'created' : 'status_changed');
  // The relay publishes later, outside this request; the stored context keeps the event in its trace.
  return { eventId, entry: { subject, event, trace: traceCarrier() } };
}

/**
 * A test-only fail point: the process exits just before (or just after) publishing the first
 * outbox entry of the given event type, leaving the stored change unpublished (or published and
 * still in the outbox). Only tests set OUTBOX_FAIL_POINT; a restart then has to finish the job.
 */
export interface OutboxFailPoint {
  when: 'crash-before-publish' | 'crash-after-publish';
  event: PaymentEvent['body']['event'];
}

export const FAIL_POINT_EXIT_CODE = 86;

/**
 * Publishes outbox entries and removes them once JetStream has them. Runs on an interval and when
 * poked after a write. Any number of replicas may run it: a twice-published entry carries the same
 * Nats-Msg-Id and JetStream keeps one; the removal is conditional, so it counts once.
 */
export class OutboxRelay {
  private readonly task: Periodic;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    intervalMs: number,
    private readonly failPoint: OutboxFailPoint | null = null,
  ) {
    // A pass serves every payment, not the request that poked it: it starts outside any trace.
    this.task = new Periodic(
      () => withTraceCarrier(undefined, () => this.drain()),
      intervalMs,
      (err) => logger.error({ err, task: 'outbox relay' }, 'background pass failed'),
    );
  }

  start(): void {
    this.task.start();
  }

  /** Asks for a pass now. */
  poke(): void {
    this.task.poke();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  private crashIf(when: OutboxFailPoint['when'], entry: OutboxEntry): void {
    if (this.failPoint?.when !== when || this.failPoint.event !== entry.event.body.event) return;
    this.logger.warn({ failPoint: this.failPoint, eventId: entry.event.eventId }, 'fail point reached: exiting');
    process.exit(FAIL_POINT_EXIT_CODE);
  }

  private async drain(): Promise<void> {
    const js = jetstream(this.nc);
    for (;;) {
      const docs = await PaymentModel.find({ outboxPending: { $gt: 0 } })
        .select({ _id: 1 })
        .limit(100)
        .lean<Pick<PaymentDoc, '_id'>[]>();
      if (docs.length === 0) return;
      for (const { _id: id } of docs) {
        await withPaymentLock(id, async () => {
          const doc = await PaymentModel.findById(id).select({ outbox: 1 }).lean<Pick<PaymentDoc, 'outbox'>>();
          const entries = Object.entries(doc?.outbox ?? {}).sort(([, a], [, b]) => a.event.sequence - b.event.sequence);
          for (const [eventId, entry] of entries) {
            this.crashIf('crash-before-publish', entry);
            await withTraceCarrier(entry.trace, () => publishEvent(js, entry.subject, entry.event, eventId));
            this.crashIf('crash-after-publish', entry);
            await PaymentModel.updateOne(
              { _id: id, [`outbox.${eventId}`]: { $exists: true } },
              { $unset: { [`outbox.${eventId}`]: '' }, $inc: { outboxPending: -1 } },
            );
          }
        });
      }
    }
  }
}
