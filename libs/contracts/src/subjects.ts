/** NATS subjects and JetStream names: the one place they are spelled. */
export const Subjects = {
  paymentsCreate: 'payments.create',
  paymentsGet: 'payments.get',
  paymentsList: 'payments.list',
  paymentsQr: 'payments.qr',
  /** The hosted payment page's read of a payment, by id alone (what the customer may see). */
  paymentsPublicView: 'payments.public-view',
  pixChargesCreate: 'pix.charges.create',
  adminStoresCreate: 'admin.stores.create',
  adminStoresSetActive: 'admin.stores.set-active',
  adminTokensIssue: 'admin.tokens.issue',
  adminTokensRevoke: 'admin.tokens.revoke',
  adminStoresRotateSecret: 'admin.stores.rotate-secret',
  adminWebhooksList: 'admin.webhooks.list',
  adminWebhooksReplay: 'admin.webhooks.replay',
  storesWebhookSecrets: 'stores.webhook-secrets',
  /** The Events API: the gateway asks the dispatcher, which owns the delivery log, for a store's events. */
  eventsList: 'events.list',
  eventsGet: 'events.get',
  eventsRedeliver: 'events.redeliver',
  /**
   * Core NATS notice, after a store's webhook secrets changed in MongoDB: every dispatcher replica
   * drops its cached copy, so the next delivery is signed with the new set.
   */
  storesWebhookSecretsRotated: 'stores.webhook-secrets.rotated',
  /** Admin: drives a payment through the state machine (internal statuses). */
  paymentsTransition: 'payments.admin.transition',
  /** Refund (API Pix devolução) of a received Pix, idempotent by refund id. */
  pixRefundsCreate: 'pix.refunds.create',
  sandboxPay: 'sandbox.pay',
  sandboxReview: 'sandbox.review',
  sandboxClear: 'sandbox.clear',
  sandboxReject: 'sandbox.reject',
  paymentEvent: (type: 'created' | 'status_changed') => `payments.events.${type}`,
  /**
   * A payment's scheduled work (charge expiry, the review refund, a charge or refund retry): the
   * schedule waits on its own subject and is delivered on `paymentDue(kind)` when it falls due.
   */
  paymentSchedule: (kind: PaymentDueKind, paymentId: string, key: string) =>
    `payments.schedules.${kind}.${paymentId}.${key}`,
  paymentDue: (kind: PaymentDueKind) => `payments.due.${kind}`,
  paymentDueAll: 'payments.due.>',
  /** The PSP's facts about a received Pix: paid, flagged for analysis, analysis cleared or rejected. */
  pixPaid: 'pix.events.paid',
  /** An event whose webhook could not be delivered (every attempt failed, or the target is refused). */
  webhookDeadLetter: 'webhooks.dead-letters',
  /** A webhook attempt to make now (the first one, a replay, or a scheduled one that fired). */
  webhookAttemptDue: 'webhooks.attempts.due',
  /**
   * Where an event's next attempt waits as a JetStream scheduled message (a retry, a deferral while
   * its endpoint is busy, a hold behind an earlier event of its payment) until it fires onto
   * webhookAttemptDue. One subject per event, and a schedule replaces the previous one on its
   * subject, so an event has at most one next step waiting; its predecessor can find it to wake it.
   */
  webhookAttemptScheduled: (paymentId: string, sequence: number) =>
    `webhooks.attempts.scheduled.${paymentId}.${sequence}`,
  pixReview: 'pix.events.review',
  pixCleared: 'pix.events.cleared',
  pixRejected: 'pix.events.rejected',
} as const;

/** What a payment's scheduled message is for. */
export type PaymentDueKind = 'expiry' | 'refund' | 'charge';

/**
 * A JetStream stream. `schedules`: it accepts scheduled messages. `workQueue`: a message is removed
 * once acknowledged (work to do, not a history to replay).
 */
export interface StreamDefinition {
  name: string;
  subjects: readonly string[];
  schedules?: boolean;
  workQueue?: boolean;
}

export const Streams = {
  payments: { name: 'PAYMENTS', subjects: ['payments.events.>'] },
  paymentSchedules: {
    name: 'PAYMENT_SCHEDULES',
    subjects: ['payments.schedules.>', 'payments.due.>'],
    schedules: true,
    workQueue: true,
  },
  pix: { name: 'PIX', subjects: ['pix.events.>'] },
  webhookDeadLetters: { name: 'WEBHOOK_DEAD_LETTERS', subjects: ['webhooks.dead-letters'] },
  /** Webhook attempts due now and those scheduled for later: the dispatcher's only work queue. */
  webhookAttempts: { name: 'WEBHOOK_ATTEMPTS', subjects: ['webhooks.attempts.>'], workQueue: true, schedules: true },
} as const satisfies Record<string, StreamDefinition>;

export const Consumers = {
  /** payments consumes its own scheduled work when it falls due. */
  paymentsDue: 'payments-due',
  /** payments consumes the PSP's facts. */
  paymentsPix: 'payments-pix',
  /** webhook-dispatcher consumes payment events. */
  dispatcherPayments: 'webhook-dispatcher',
  /** webhook-dispatcher makes the attempts due on WEBHOOK_ATTEMPTS. */
  dispatcherAttempts: 'webhook-dispatcher-attempts',
} as const;

/** Queue groups: every replica of a service joins its group, so each request is served once. */
export const QueueGroups = {
  gateway: 'gateway',
  payments: 'payments',
  pixProviderAdapter: 'pix-provider-adapter',
  webhookDispatcher: 'webhook-dispatcher',
} as const;
