import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Subjects, type PaymentEvent, type PaymentStatus } from '@pix/contracts';
import { jetstream, publishEvent, traceCarrier, withTraceCarrier } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { PaymentModel, type OutboxEntry, type PaymentDoc } from './model';
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
 * Publishes outbox entries and removes them once JetStream has them. Runs on an interval and when
 * poked after a write. Any number of replicas may run it: a twice-published entry carries the same
 * Nats-Msg-Id and JetStream keeps one; the removal is conditional, so it counts once.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly intervalMs: number,
    /** Test-only fail point: exit after storing a change and before publishing it. */
    private readonly crashBeforePublish = false,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.poke(), this.intervalMs);
  }

  /** Asks for a pass now; passes never overlap, a poke during one schedules another. */
  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // A pass serves every payment, not the request that poked it: it starts outside any trace.
    this.running = withTraceCarrier(undefined, () => this.drain())
      .catch((err: unknown) => this.logger.error({ err }, 'outbox relay pass failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  async stop(): Promise<void> {
    // Entries left pending are published by any replica's next pass (or this one's, restarted).
    this.stopped = true;
    clearInterval(this.timer);
    this.again = false;
    await this.running;
  }

  private async drain(): Promise<void> {
    if (this.crashBeforePublish) {
      this.logger.warn('fail point OUTBOX_CRASH_BEFORE_PUBLISH: exiting before publishing');
      process.exit(86);
    }
    const js = jetstream(this.nc);
    for (;;) {
      const docs = await PaymentModel.find({ outboxPending: { $gt: 0 } })
        .select({ outbox: 1 })
        .limit(100)
        .lean<Pick<PaymentDoc, '_id' | 'outbox'>[]>();
      if (docs.length === 0) return;
      for (const doc of docs) {
        const entries = Object.entries(doc.outbox).sort(([, a], [, b]) => a.event.sequence - b.event.sequence);
        for (const [eventId, entry] of entries) {
          await withTraceCarrier(entry.trace, () => publishEvent(js, entry.subject, entry.event, eventId));
          await PaymentModel.updateOne(
            { _id: doc._id, [`outbox.${eventId}`]: { $exists: true } },
            { $unset: { [`outbox.${eventId}`]: '' }, $inc: { outboxPending: -1 } },
          );
        }
      }
    }
  }
}
