import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  Subjects,
  type PaymentDueKind,
  type PaymentEndCause,
  type PaymentEvent,
  type PaymentStatus,
} from '@pix/contracts';
import {
  incrementCounter,
  jetstream,
  publishEvent,
  signingJetStream,
  traceCarrier,
  withTraceCarrier,
  type FactSigner,
} from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { outboxLeftovers } from './metrics';
import type { OutboxMessage, PaymentState } from './model';
import type { PaymentStorage } from './payment-storage';
import { paymentEventData } from './presenter';

/**
 * The event about `doc` as it is after a change, as a message the change owes. It is stored in the
 * payment's outbox by the write that makes the change, so it cannot be lost: the writer publishes it
 * right after the write, or the outbox relay does. `cause`: what ended a payment that leaves pending
 * without a Pix (its hosted page says which).
 */
export function eventMessage(
  doc: PaymentState,
  sequence: number,
  previousStatus: PaymentStatus | null,
  cause?: PaymentEndCause,
): OutboxMessage {
  const data = paymentEventData(doc);
  const body: PaymentEvent['body'] =
    previousStatus === null
      ? { event: 'payment.created', ...data }
      : { event: 'payment.status_changed', ...data, previousStatus };
  return owedEvent(doc, sequence, body, cause);
}

/** An event of the payment with its envelope (the payment, its store and webhookUrl), as an owed message. */
export function owedEvent(
  doc: Pick<PaymentState, '_id' | 'storeId' | 'webhookUrl'>,
  sequence: number,
  body: PaymentEvent['body'],
  cause?: PaymentEndCause,
): OutboxMessage {
  const eventId = `evt_${randomUUID().replace(/-/g, '')}`;
  const event: PaymentEvent = {
    eventId,
    occurredAt: new Date().toISOString(),
    sequence,
    paymentId: doc._id,
    storeId: doc.storeId,
    webhookUrl: doc.webhookUrl,
    ...(cause && { cause }),
    body,
  };
  return {
    // The dispatcher takes only the events of payments with a webhookUrl (a payment's never changes).
    subject: Subjects.paymentEvent(body.event, Boolean(doc.webhookUrl)),
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

/** How long a writer waits for JetStream to take its write's messages. */
const PUBLISH_TIMEOUT_MS = 2000;

/**
 * Publishes a write's messages; each lands once on its stream, however often this runs. Events go
 * one after another, in the order their writes made them (a payment's created before its
 * status_changed); schedules and counter increments, which no order concerns, go alongside them.
 * Every payment event leaves signed by `signer`, payments' key: the dispatcher sends no webhook for
 * any other. This is the one place payments publishes (a writer's own publish and the relay's).
 */
export function publisher(nc: NatsConnection, signer: FactSigner): (messages: OutboxMessage[]) => Promise<void> {
  // A request waits for its write's messages to be published (a list then counts the payment), but
  // not for long: a stream that cannot answer within this leaves them to be published again later.
  const js = signingJetStream(jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }), signer);
  const publishOne = (message: OutboxMessage): Promise<unknown> =>
    message.increment !== undefined
      ? incrementCounter(js, message.subject, message.increment, message.msgId)
      : withTraceCarrier(message.trace, () =>
          publishEvent(js, message.subject, message.body, message.msgId, { schedule: message.schedule }),
        );
  return async (messages) => {
    const inOrder = messages.filter((m) => m.increment === undefined && !m.schedule);
    const unordered = messages.filter((m) => m.increment !== undefined || m.schedule);
    await Promise.all([
      (async () => {
        for (const message of inOrder) await publishOne(message);
      })(),
      ...unordered.map(publishOne),
    ]);
  };
}

/** Passes a writer may miss before it is taken for dead (a pass says how far it has published). */
const SILENT_PASSES = 3;

/**
 * The outbox's safety net, and each writer's word: every few seconds a pass records how far this
 * process has published (its writer record), and publishes what no writer will: the messages of a
 * writer silent for three passes (a process that died; then marked gone), of this process's writes
 * whose outcome is unknown, and those stored before messages named their writer. Each is found by
 * the outbox index, by writer and instant, so a pass reads only those payments. A writer publishes
 * its own messages at once, so this finds work only after a crash or a failed database command.
 * Any number of replicas may run it: a message published twice carries the same Nats-Msg-Id and
 * JetStream keeps one.
 */
export class OutboxRelay extends Periodic {
  private readonly silentAfterMs: number;

  constructor(
    private readonly store: Pick<PaymentStorage, 'relay'>,
    private readonly logger: Logger,
    intervalMs: number,
  ) {
    super(intervalMs, (err) => logger.error({ err, task: 'outbox relay' }, 'background pass failed'));
    this.silentAfterMs = SILENT_PASSES * intervalMs;
  }

  /** Outside any trace: a pass is nobody's request. */
  protected run(): Promise<void> {
    return withTraceCarrier(undefined, () => this.pass());
  }

  /** One pass now: before the first write, so this writer's record is there should it die. */
  async pass(): Promise<void> {
    const { relayed, waiting } = await this.store.relay(this.silentAfterMs);
    // The gauge counts both: either is a payment whose messages JetStream had not taken.
    outboxLeftovers.set(relayed + waiting);
    if (relayed > 0) this.logger.info({ payments: relayed }, 'outbox leftovers published');
    if (waiting > 0) this.logger.info({ payments: waiting }, 'outboxes wait for JetStream to publish again');
  }
}
