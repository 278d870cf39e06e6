import { Counter, Gauge, type Registry } from '@pix/observability';
import { PaymentModel } from './model';

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

export const outboxPending = new Gauge({
  name: 'outbox_pending_events',
  help: 'Events stored in payment outboxes and not yet published to JetStream',
  registers: [],
  async collect() {
    const [sum] = await PaymentModel.aggregate<{ total: number }>([
      { $match: { outboxPending: { $gt: 0 } } },
      { $group: { _id: null, total: { $sum: '$outboxPending' } } },
    ]);
    this.set(sum?.total ?? 0);
  },
});

export function registerPaymentMetrics(registry: Registry): void {
  registry.registerMetric(paymentsCreated);
  registry.registerMetric(statusChanges);
  registry.registerMetric(pspChargeFailures);
  registry.registerMetric(outboxPending);
}
