/** NATS subjects and JetStream names: the one place they are spelled. */
export const Subjects = {
  paymentsCreate: 'payments.create',
  paymentsGet: 'payments.get',
  paymentsList: 'payments.list',
  paymentsQr: 'payments.qr',
  pixChargesCreate: 'pix.charges.create',
  adminStoresCreate: 'admin.stores.create',
  adminStoresSetActive: 'admin.stores.set-active',
  adminTokensIssue: 'admin.tokens.issue',
  adminTokensRevoke: 'admin.tokens.revoke',
  adminStoresRotateSecret: 'admin.stores.rotate-secret',
  adminWebhooksList: 'admin.webhooks.list',
  adminWebhooksReplay: 'admin.webhooks.replay',
  storesWebhookSecrets: 'stores.webhook-secrets',
  /** Admin: drives a payment through the state machine (internal statuses). */
  paymentsTransition: 'payments.admin.transition',
  /** Refund (API Pix devolução) of a received Pix, idempotent by refund id. */
  pixRefundsCreate: 'pix.refunds.create',
  sandboxPay: 'sandbox.pay',
  sandboxReview: 'sandbox.review',
  sandboxClear: 'sandbox.clear',
  sandboxReject: 'sandbox.reject',
  paymentEvent: (type: 'created' | 'status_changed') => `payments.events.${type}`,
  /** The PSP's facts about a received Pix: paid, flagged for analysis, analysis cleared or rejected. */
  pixPaid: 'pix.events.paid',
  /** An event whose webhook could not be delivered (every attempt failed, or the target is refused). */
  webhookDeadLetter: 'webhooks.dead-letters',
  pixReview: 'pix.events.review',
  pixCleared: 'pix.events.cleared',
  pixRejected: 'pix.events.rejected',
} as const;

export const Streams = {
  payments: { name: 'PAYMENTS', subjects: ['payments.events.>'] },
  pix: { name: 'PIX', subjects: ['pix.events.>'] },
  webhookDeadLetters: { name: 'WEBHOOK_DEAD_LETTERS', subjects: ['webhooks.dead-letters'] },
} as const;

export const Consumers = {
  /** payments consumes the PSP's facts. */
  paymentsPix: 'payments-pix',
  /** webhook-dispatcher consumes payment events. */
  dispatcherPayments: 'webhook-dispatcher',
} as const;

/** Queue groups: every replica of a service joins its group, so each request is served once. */
export const QueueGroups = {
  gateway: 'gateway',
  payments: 'payments',
  pixProviderAdapter: 'pix-provider-adapter',
  webhookDispatcher: 'webhook-dispatcher',
} as const;
