import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { Subjects, type PaymentDueKind, type PaymentEvent, type PaymentStatus } from '@pix/contracts';
import { jetstream, publishEvent, traceCarrier, withTraceCarrier } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { outboxLeftovers } from './metrics';
import type { OutboxMessage, PaymentDoc } from './model';
import type { PaymentStore } from './payment-store';
import { toPayment } from './presenter';

/**
 * The event about `doc` as it is after a change, as a message the change owes. It is stored in the
 * change's intent before the change is written, so it cannot be lost: the writer publishes it right
 * after the write, or the recovery sweep does.
 */
export function eventMessage(doc: PaymentDoc, sequence: number, previousStatus: PaymentStatus | null): OutboxMessage {
  const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
  const { isPublic: _internalOnly, ...data } = toPayment(doc);
  const body: PaymentEvent['body'] =
    previousStatus === null
      ? { event: 'payment.created', ...data }
      : { event: 'payment.status_changed', ...data, previousStatus };
  const event: PaymentEvent = { eventId, occurredAt: new Date().toISOString(), sequence, body };
  return {
    subject: Subjects.paymentEvent(previousStatus === null ? 'created' : 'status_changed'),
    msgId: eventId,
    body: event,
    // Published after the request that caused it returns: the stored context keeps it in its trace.
    trace: traceCarrier(),
  };
}

/** What a scheduled message of a payment carries to its handler. */
export interface DueMessage {
  paymentId: string;
  kind: PaymentDueKind;
  /** The deadline it was scheduled for; a payment whose deadline moved since ignores it. */
  at: string;
  /** Retries of the same work count up from 1. */
  attempt: number;
}

/**
 * A message JetStream delivers to payments when `deadline` falls due (or, for a retry, at
 * `retry.at`): a deadline of the payment, or a retry of work that failed. `key` makes its schedule
 * unique, and its message id: publishing it again is harmless.
 */
export function dueMessage(
  paymentId: string,
  kind: PaymentDueKind,
  deadline: Date,
  key: string,
  retry?: { attempt: number; at: Date },
): OutboxMessage {
  const body: DueMessage = { paymentId, kind, at: deadline.toISOString(), attempt: retry?.attempt ?? 1 };
  return {
    subject: Subjects.paymentSchedule(kind, paymentId, key),
    msgId: `due:${paymentId}:${kind}:${key}`,
    body,
    schedule: { at: retry?.at ?? deadline, target: Subjects.paymentDue(kind) },
  };
}

/** Publishes messages in order; each lands once on its stream, however often this runs. */
export function publisher(nc: NatsConnection): (messages: OutboxMessage[]) => Promise<void> {
  const js = jetstream(nc);
  return async (messages) => {
    for (const message of messages) {
      await withTraceCarrier(message.trace, () =>
        publishEvent(js, message.subject, message.body, message.msgId, { schedule: message.schedule }),
      );
    }
  };
}

/**
 * A test-only fail point: the process exits just before (or just after) publishing the messages of
 * the first write that owes an event of the given type, leaving the stored change unpublished (or
 * published with its intent still open). Only tests set OUTBOX_FAIL_POINT; the sweep of a restarted
 * or another replica then has to finish the job.
 */
export interface OutboxFailPoint {
  when: 'crash-before-publish' | 'crash-after-publish';
  event: PaymentEvent['body']['event'];
}

export const FAIL_POINT_EXIT_CODE = 86;

export function withFailPoint(
  publish: (messages: OutboxMessage[]) => Promise<void>,
  failPoint: OutboxFailPoint | null,
  logger: Logger,
): (messages: OutboxMessage[]) => Promise<void> {
  if (!failPoint) return publish;
  const reached = (messages: OutboxMessage[]) =>
    messages.some((m) => (m.body as Partial<PaymentEvent>).body?.event === failPoint.event);
  const crash = () => {
    logger.warn({ failPoint }, 'fail point reached: exiting');
    process.exit(FAIL_POINT_EXIT_CODE);
  };
  return async (messages) => {
    if (failPoint.when === 'crash-before-publish' && reached(messages)) crash();
    await publish(messages);
    if (failPoint.when === 'crash-after-publish' && reached(messages)) crash();
  };
}

/** Leftovers younger than this may still be in their writer's hands. */
const SWEEP_MIN_AGE_MS = 5_000;

/**
 * The outbox's safety net: every few seconds it reads the open intents (an equality on an indexed
 * flag; only writes in flight and leftovers are open) and finishes those older than a few seconds:
 * their messages are published if their write happened, or they are dropped if it did not. A write
 * normally publishes its own messages at once, so this finds work only after a crash or while
 * JetStream was unreachable. Any number of replicas may run it: a message published twice carries
 * the same Nats-Msg-Id and JetStream keeps one.
 */
export class OutboxSweep extends Periodic {
  constructor(
    private readonly store: PaymentStore,
    private readonly logger: Logger,
    intervalMs: number,
  ) {
    super(intervalMs, (err) => logger.error({ err, task: 'outbox sweep' }, 'background pass failed'));
  }

  /** Outside any trace: a sweep is nobody's request. */
  protected run(): Promise<void> {
    return withTraceCarrier(undefined, () => this.sweep());
  }

  private async sweep(): Promise<void> {
    const open = await this.store.openIntents(100);
    const leftovers = open.filter((intent) => Date.now() - intent.at.getTime() >= SWEEP_MIN_AGE_MS);
    outboxLeftovers.set(leftovers.length);
    for (const intent of leftovers) {
      const outcome = await this.store.recover(intent);
      this.logger.info({ paymentId: intent.paymentId, rev: intent.rev, outcome }, 'outbox leftover finished');
    }
  }
}
