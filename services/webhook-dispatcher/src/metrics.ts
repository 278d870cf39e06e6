import { Counter, Gauge, Histogram, type Registry } from '@pix/observability';
import { WEBHOOK_ATTEMPT_OUTCOMES } from '@pix/contracts';

export type DispatcherMetrics = ReturnType<typeof createMetrics>;

/** The dispatcher's metrics; names and labels are fixed (dashboards and alerts use them). */
export function createMetrics(registry: Registry) {
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (success: 2xx in time; failure: anything else; refused: SSRF guard)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of WEBHOOK_ATTEMPT_OUTCOMES) deliveries.inc({ outcome }, 0);
  return {
    deliveries,
    duration: new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Duration of webhook delivery attempts',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
      registers: [registry],
    }),
    retries: new Counter({
      name: 'webhook_retries_total',
      help: 'Failed webhook attempts scheduled for another attempt',
      registers: [registry],
    }),
    broughtForward: new Counter({
      name: 'webhook_retries_brought_forward_total',
      help:
        'Webhook retries sent before their scheduled time because their endpoint answered 2xx again ' +
        '(remembered by the replica, or waited for by a later event of their payment)',
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'webhook_dead_letters_total',
      help: 'Webhook deliveries given up and sent to the dead-letter stream',
      registers: [registry],
    }),
    stalled: new Counter({
      name: 'webhook_stalled_total',
      help: 'Pending deliveries the stall check found not moved on, whose next attempt it published again',
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'webhook_in_flight',
      help: 'Webhook attempts in flight, by endpoint (URL origin)',
      labelNames: ['endpoint'],
      registers: [registry],
    }),
  };
}
