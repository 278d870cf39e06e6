import { Counter, Gauge, type Registry } from '@pix/observability';

/**
 * The payments service's own metrics. They are module-level (every status change, wherever it is
 * made, counts) and join the service's registry when main() registers them.
 */
export const paymentsCreated = new Counter({
  name: 'payments_created_total',
  help: 'Payments created, by origin',
  labelNames: ['is_public'] as const,
  registers: [],
});

export const statusChanges = new Counter({
  name: 'payment_status_changes_total',
  help: 'Payment status changes, by previous and new status',
  labelNames: ['from', 'to'] as const,
  registers: [],
});

export const pspChargeFailures = new Counter({
  name: 'psp_charge_failures_total',
  help: 'Charge requests to the PSP that failed (at create or in the background), each retried later',
  registers: [],
});

/**
 * Set by the outbox relay: payments whose messages were unpublished at its last pass, those this
 * process waits to publish again (JetStream away) and those the pass published because their writer
 * could not (a crashed writer, a write whose outcome was unknown, messages from before writers were
 * named). Read from the last pass, so a scrape costs nothing.
 */
export const outboxLeftovers = new Gauge({
  name: 'outbox_pending_events',
  help: 'Payments whose messages (events, schedules, counts) were unpublished at the last outbox relay pass',
  registers: [],
});

export const refundsCreated = new Counter({
  name: 'refunds_created_total',
  help:
    'Refunds recorded, by origin (merchant, or platform: a late Pix or a payment refused in review, both sent to ' +
    'the PSP; psp: a devolução the PSP made on its own, such as a MED return, recorded when it settled)',
  labelNames: ['origin'] as const,
  registers: [],
});

/**
 * Facts of the PSP that payments refused for the payment they name: `other_mode`, a fact from one
 * mode's PSP connection about a payment of the other (a test PSP can never move live money).
 */
export const pixFactsRefused = new Counter({
  name: 'pix_facts_refused_total',
  help: "PSP facts not applied to the payment they name, by reason: other_mode (told by the other mode's PSP connection)",
  labelNames: ['reason'] as const,
  registers: [],
});

export const refundsSettled = new Counter({
  name: 'refunds_settled_total',
  help: 'Refunds the PSP settled, by origin and status (succeeded, failed)',
  labelNames: ['origin', 'status'] as const,
  registers: [],
});

/**
 * Devoluções the PSP made on its own (a MED return) for more than was left to refund of the Pix:
 * recorded as the PSP says (the payment's refundedAmount may pass what was paid), and flagged here
 * for an operator (a merchant's refund in flight will likely fail at the PSP).
 */
export const pspRefundsAboveLeft = new Counter({
  name: 'psp_refunds_above_left_total',
  help: 'Devoluções the PSP made on its own (MED returns) for more than was left to refund of their Pix, by nature',
  labelNames: ['nature'] as const,
  registers: [],
});

/**
 * Refund settlements a PSP connection told of a charge the platform does not know: money that went
 * back from the receiver's account with no payment to show it on, for an operator to look into.
 */
export const refundSettlementsUnknownCharge = new Counter({
  name: 'refund_settlements_unknown_charge_total',
  help: "Refund settlements (the platform's or a devolução the PSP made on its own) told of a charge the platform does not know, by PSP connection",
  labelNames: ['connection'] as const,
  registers: [],
});

/**
 * Dispute facts of the PSP (infractions, MED claims) as payments applied them: opened, closed,
 * past_deadline (opened with its deadline already past: recorded, no defence possible),
 * another_open (a second infraction while one is open: left to an operator), unknown_charge.
 */
export const disputeFacts = new Counter({
  name: 'payments_dispute_facts_total',
  help: 'Dispute facts (PSP infractions) applied, by outcome: opened, closed, past_deadline, another_open (not applied), unknown_charge (not applied)',
  labelNames: ['outcome'] as const,
  registers: [],
});

/** Each view a publish owed the read model: written, or left as it was because it showed this revision or a later one. */
export const paymentViewWrites = new Counter({
  name: 'payment_view_writes_total',
  help: 'Payment views owed to the read model (PAYMENT_VIEWS), by outcome: written, or kept (the bucket showed this revision or a later one)',
  labelNames: ['outcome'] as const,
  registers: [],
});

/** Statement checks of a connection's day (statement-check.ts), by outcome: completed, or failed (its PSP unread). */
export const statementCheckRuns = new Counter({
  name: 'statement_check_runs_total',
  help: 'Statement checks of a day against a PSP connection, by connection and outcome (completed, failed)',
  labelNames: ['connection', 'outcome'] as const,
  registers: [],
});

export function registerPaymentMetrics(registry: Registry): void {
  registry.registerMetric(statementCheckRuns);
  registry.registerMetric(disputeFacts);
  registry.registerMetric(paymentsCreated);
  registry.registerMetric(statusChanges);
  registry.registerMetric(pspChargeFailures);
  registry.registerMetric(outboxLeftovers);
  registry.registerMetric(refundsCreated);
  registry.registerMetric(refundsSettled);
  registry.registerMetric(pixFactsRefused);
  registry.registerMetric(pspRefundsAboveLeft);
  registry.registerMetric(refundSettlementsUnknownCharge);
  registry.registerMetric(paymentViewWrites);
}
