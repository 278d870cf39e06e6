import { Subjects } from './subjects';

/**
 * A JetStream stream. `schedules`: it accepts scheduled messages. `workQueue`: a message is removed
 * once acknowledged (work to do, not a history to replay). `counters`: each subject is a counter
 * (nats-server 2.12 message counters): a message adds its `Nats-Incr` to the subject's total, which
 * the subject's last message holds.
 */
export interface StreamDefinition {
  name: string;
  subjects: readonly string[];
  schedules?: boolean;
  workQueue?: boolean;
  counters?: boolean;
}

export const Streams = {
  payments: { name: 'PAYMENTS', subjects: [Subjects.paymentEventsAll] },
  paymentSchedules: {
    name: 'PAYMENT_SCHEDULES',
    subjects: [Subjects.paymentSchedulesAll, Subjects.paymentDueAll],
    schedules: true,
    workQueue: true,
  },
  /** Each store's payment counts, which the list's total reads (a change's increments are in its outbox). */
  paymentCounts: { name: 'PAYMENT_COUNTS', subjects: [Subjects.paymentCountsAll], counters: true },
  pix: { name: 'PIX', subjects: [Subjects.pixEventsAll] },
  /** Refunds to send and charges to remove, with the adapter's retries and read-backs of them: its work queue. */
  pixCommands: { name: 'PIX_COMMANDS', subjects: [Subjects.pixCommandsAll], schedules: true, workQueue: true },
  webhookDeadLetters: { name: 'WEBHOOK_DEAD_LETTERS', subjects: [Subjects.webhookDeadLetter] },
  /** Webhook attempts due now and those scheduled for later: the dispatcher's only work queue. */
  webhookAttempts: {
    name: 'WEBHOOK_ATTEMPTS',
    subjects: [Subjects.webhookAttemptsAll],
    workQueue: true,
    schedules: true,
  },
} as const satisfies Record<string, StreamDefinition>;

/** A durable consumer: its stream, its name and the subjects it takes. */
export interface ConsumerDefinition {
  stream: string;
  durable: string;
  filterSubject: string;
}

export const Consumers = {
  /** payments consumes its own scheduled work when it falls due. */
  paymentsDue: {
    stream: Streams.paymentSchedules.name,
    durable: 'payments-due',
    filterSubject: Subjects.paymentDueAll,
  },
  /** payments consumes the PSP's facts. */
  paymentsPix: { stream: Streams.pix.name, durable: 'payments-pix', filterSubject: Subjects.pixEventsAll },
  /** The adapter takes payments' commands to the PSP (refunds, charge removals) when they are due. */
  adapterCommands: {
    stream: Streams.pixCommands.name,
    durable: 'pix-provider-adapter-commands',
    filterSubject: Subjects.pixCommandsRunAll,
  },
  /** webhook-dispatcher consumes payment events. */
  dispatcherPayments: {
    stream: Streams.payments.name,
    durable: 'webhook-dispatcher',
    filterSubject: Subjects.paymentEventsAll,
  },
  /** webhook-dispatcher makes the attempts due on WEBHOOK_ATTEMPTS. */
  dispatcherAttempts: {
    stream: Streams.webhookAttempts.name,
    durable: 'webhook-dispatcher-attempts',
    filterSubject: Subjects.webhookAttemptDue,
  },
} as const satisfies Record<string, ConsumerDefinition>;

/** Queue groups: every replica of a service joins its group, so each request is served once. */
export const QueueGroups = {
  gateway: 'gateway',
  payments: 'payments',
  pixProviderAdapter: 'pix-provider-adapter',
  webhookDispatcher: 'webhook-dispatcher',
} as const;
