import { z } from 'zod';
import { listPageSchema } from './payment';
import { EVENT_TYPES, WebhookBodySchema } from './events';
import { LivemodeSchema } from './modes';
import { WEBHOOK_ATTEMPT_OUTCOMES, WEBHOOK_DELIVERY_STATUSES } from './webhooks';

/**
 * The Events API (`/public-api/v1/events`): a store's webhook events as its deliveries recorded
 * them, for a merchant to catch up after an outage and to ask for one again. The gateway validates
 * and authenticates; the webhook dispatcher, which owns the delivery log, answers over NATS.
 */
/** One event as the list shows it: what was sent, and how its delivery stands. */
export const EventSchema = z.object({
  id: z.string().meta({ description: 'The event id (evt_…), the webhook-id every delivery of it carries' }),
  type: z.enum(EVENT_TYPES),
  paymentId: z.string(),
  livemode: LivemodeSchema,
  createdAt: z.iso.datetime({ precision: 3 }).meta({ description: 'When the event happened (ISO 8601, UTC)' }),
  /** The webhook body exactly as delivered. */
  body: WebhookBodySchema,
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).meta({
    description: 'pending: being delivered or retried; delivered: a 2xx arrived; dead: every attempt failed',
  }),
  attemptCount: z.number().int().min(0).meta({ description: 'Attempts made so far, over every run' }),
  nextAttemptAt: z.iso
    .datetime({ precision: 3 })
    .nullable()
    .meta({ description: 'When the next attempt is due, while pending' }),
});
export type PublicEvent = z.infer<typeof EventSchema>;

/** One delivery attempt of an event. */
export const EventAttemptSchema = z.object({
  run: z.number().int().min(1).meta({ description: '1 for the first delivery, then one more per redelivery' }),
  attempt: z.number().int().min(1).meta({ description: 'The attempt within its run, from 1' }),
  at: z.iso.datetime({ precision: 3 }),
  outcome: z.enum(WEBHOOK_ATTEMPT_OUTCOMES).nullable().meta({ description: 'Null while the attempt is in flight' }),
  statusCode: z.number().int().nullable().meta({ description: "The endpoint's HTTP status, if it answered" }),
  latencyMs: z.number().nullable(),
  error: z.string().nullable(),
});
export type EventAttempt = z.infer<typeof EventAttemptSchema>;

/** One event with every attempt, in order. */
export const EventDetailSchema = EventSchema.extend({ attempts: z.array(EventAttemptSchema) });
export type PublicEventDetail = z.infer<typeof EventDetailSchema>;

export const EventListSchema = listPageSchema(EventSchema);
export type PublicEventList = z.infer<typeof EventListSchema>;

/** What the redelivery started: a new run of the event's delivery, under the same webhook-id. */
export const EventRedeliverySchema = z.object({
  id: z.string(),
  status: z.literal('pending'),
  run: z.number().int().min(2),
});
export type EventRedelivery = z.infer<typeof EventRedeliverySchema>;

/** An event id as the platform makes it (payments' outbox): anything else is answered 404 without a query. */
const EVENT_ID = /^evt_[0-9a-f]{32}$/;
export function isEventId(value: unknown): value is string {
  return typeof value === 'string' && EVENT_ID.test(value);
}
