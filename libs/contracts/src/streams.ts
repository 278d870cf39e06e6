import type { NatsIdentity } from './identities';
import { Subjects } from './subjects';

/**
 * A JetStream stream. `schedules`: it accepts scheduled messages. `workQueue`: a message is removed
 * once acknowledged (work to do, not a history to replay). `counters`: each subject is a counter
 * (nats-server 2.12 message counters): a message adds its `Nats-Incr` to the subject's total, which
 * the subject's last message holds.
 *
 * Who may use it (permissions.ts makes NATS hold to it): `writers` publish on every one of its
 * subjects, which is also what lets a scheduled message fire (the server checks only that its
 * target is a subject of the same stream, so whoever may schedule must be allowed every target);
 * `feed`: the stream republishes each message it stores onto that subject (its one subject's
 * tokens after the feed's prefix), which the `subscribers` receive as core NATS messages (every
 * replica sees every message, at most once: nothing is redelivered after a disconnection); no
 * service creates a consumer of its own. `lookups` read a subject's last message, or a batch of
 * messages. Durable consumers name their reader below.
 */
export interface StreamDefinition {
  name: string;
  subjects: readonly string[];
  writers: readonly NatsIdentity[];
  feed?: { subject: string; subscribers: readonly NatsIdentity[] };
  lookups?: readonly NatsIdentity[];
  schedules?: boolean;
  workQueue?: boolean;
  counters?: boolean;
}

export const Streams = {
  /** Payment events: the dispatcher's webhooks, and the gateway's live payment pages. */
  payments: {
    name: 'PAYMENTS',
    subjects: [Subjects.paymentEventsAll],
    writers: ['payments'],
    feed: { subject: Subjects.paymentEventsFeedAll, subscribers: ['gateway'] },
  },
  paymentSchedules: {
    name: 'PAYMENT_SCHEDULES',
    subjects: [Subjects.paymentSchedulesAll, Subjects.paymentDueAll],
    writers: ['payments'],
    schedules: true,
    workQueue: true,
  },
  /** Each store's payment counts, which the list's total reads (a change's increments are in its outbox). */
  paymentCounts: {
    name: 'PAYMENT_COUNTS',
    subjects: [Subjects.paymentCountsAll],
    writers: ['payments'],
    lookups: ['payments'],
    counters: true,
  },
  /** The PSP's facts: the adapter alone speaks for the PSP. */
  pix: { name: 'PIX', subjects: [Subjects.pixEventsAll], writers: ['pix-provider-adapter'] },
  /**
   * Refunds to send and charges to remove, with the adapter's retries and read-backs of them: its
   * work queue. payments writes the commands (its writes owe them), the adapter its own next tries
   * (scheduled messages, so it may write the commands' subjects too).
   */
  pixCommands: {
    name: 'PIX_COMMANDS',
    subjects: [Subjects.pixCommandsAll],
    writers: ['payments', 'pix-provider-adapter'],
    // The adapter counts the refunds whose next try or read-back waits here (pix_refunds_awaiting_psp).
    lookups: ['pix-provider-adapter'],
    schedules: true,
    workQueue: true,
  },
  webhookDeadLetters: {
    name: 'WEBHOOK_DEAD_LETTERS',
    subjects: [Subjects.webhookDeadLetter],
    writers: ['webhook-dispatcher'],
  },
  /** Webhook attempts due now and those scheduled for later: the dispatcher's only work queue. */
  webhookAttempts: {
    name: 'WEBHOOK_ATTEMPTS',
    subjects: [Subjects.webhookAttemptsAll],
    writers: ['webhook-dispatcher'],
    workQueue: true,
    schedules: true,
  },
} as const satisfies Record<string, StreamDefinition>;

/**
 * A durable consumer: its stream, its name, the subjects it takes (one filter or several that do
 * not overlap), and the one identity that reads it (NATS lets no other bind it). `maxAckPending`:
 * messages handed out and not acked yet, over every replica (the server's default, 1000, unless set).
 */
export interface ConsumerDefinition {
  stream: string;
  durable: string;
  filterSubjects: readonly [string, ...string[]];
  reader: NatsIdentity;
  maxAckPending?: number;
}

/**
 * JetStream's advisory that a durable consumer has a new leader (its member lost, or stepped down),
 * published in the account that holds JetStream. A pull waiting on the old leader went with it: the
 * consumer's reader pulls again on this (libs/messaging's startConsumer) rather than after two
 * missed heartbeats.
 */
export function leaderElectedAdvisory(consumer: Pick<ConsumerDefinition, 'stream' | 'durable'>): string {
  return `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.${consumer.stream}.${consumer.durable}`;
}

export const Consumers = {
  /** payments consumes its own scheduled work when it falls due. */
  paymentsDue: {
    stream: Streams.paymentSchedules.name,
    durable: 'payments-due',
    filterSubjects: [Subjects.paymentDueAll],
    reader: 'payments',
  },
  /** payments consumes the PSP's facts. */
  paymentsPix: {
    stream: Streams.pix.name,
    durable: 'payments-pix',
    filterSubjects: [Subjects.pixEventsAll],
    reader: 'payments',
  },
  /** The adapter takes payments' commands to the PSP (refunds, charge removals) when they are due. */
  adapterCommands: {
    stream: Streams.pixCommands.name,
    durable: 'pix-provider-adapter-commands',
    filterSubjects: [Subjects.pixCommandsRunAll],
    reader: 'pix-provider-adapter',
  },
  /**
   * webhook-dispatcher consumes the events of payments with a webhookUrl, and those published before
   * subjects said so (they stay on the stream for its max age, and an outbox written before may
   * still hold some): an event of a payment without one costs it nothing.
   */
  dispatcherPayments: {
    stream: Streams.payments.name,
    durable: 'webhook-dispatcher',
    filterSubjects: [Subjects.paymentEventsWithWebhook, Subjects.paymentEventsUntagged],
    reader: 'webhook-dispatcher',
  },
  /**
   * webhook-dispatcher makes the attempts due on WEBHOOK_ATTEMPTS, with room for a merchant's
   * backlog handed back while its endpoint is busy, besides the others'.
   */
  dispatcherAttempts: {
    stream: Streams.webhookAttempts.name,
    durable: 'webhook-dispatcher-attempts',
    filterSubjects: [Subjects.webhookAttemptDue],
    reader: 'webhook-dispatcher',
    maxAckPending: 20_000,
  },
} as const satisfies Record<string, ConsumerDefinition>;

/** Queue groups: every replica of a service joins its group, so each request is served once. */
export const QueueGroups = {
  gateway: 'gateway',
  payments: 'payments',
  pixProviderAdapter: 'pix-provider-adapter',
  webhookDispatcher: 'webhook-dispatcher',
} as const;
