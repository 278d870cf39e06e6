import { z } from 'zod';
import { PaymentEventSchema } from './events';

/** How one delivery attempt ended: a 2xx in time, anything else, or a target the SSRF guard refused. */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['success', 'failure', 'refused'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];

/** pending: still to be (re)tried; delivered: a 2xx arrived; dead: dead-lettered (attempts exhausted or refused). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** One attempt in the delivery log. */
export const WebhookAttemptSchema = z.object({
  /** Replays start a new run; attempts are numbered from 1 within a run. */
  run: z.number().int(),
  attempt: z.number().int(),
  at: z.string(),
  /** Null while the attempt is in flight (or if its replica stopped before recording the result). */
  outcome: z.enum(WEBHOOK_ATTEMPT_OUTCOMES).nullable(),
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().nullable(),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof WebhookAttemptSchema>;

/** One event's delivery to its payment's webhookUrl, with its attempts. */
export const WebhookDeliverySchema = z.object({
  eventId: z.string(),
  event: z.string(),
  sequence: z.number().int(),
  url: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  nextAttemptAt: z.string().nullable(),
  attempts: z.array(WebhookAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** What the dead-letter stream holds: the event, where it was going, and why it was given up. */
export const WebhookDeadLetterSchema = z.object({
  eventId: z.string(),
  paymentId: z.string(),
  storeId: z.string(),
  url: z.string(),
  reason: z.enum(['exhausted', 'refused']),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  deadLetteredAt: z.string(),
  event: PaymentEventSchema,
});
export type WebhookDeadLetter = z.infer<typeof WebhookDeadLetterSchema>;

/**
 * A webhook attempt to make, on WEBHOOK_ATTEMPTS: everything the attempt needs, so that making it
 * reads nothing from the delivery log. Scheduled messages arrive without the publisher's headers,
 * so the trace context travels in the body.
 */
export const WebhookAttemptMessageSchema = z.object({
  eventId: z.string(),
  paymentId: z.string(),
  storeId: z.string(),
  sequence: z.number().int(),
  url: z.string(),
  event: PaymentEventSchema,
  run: z.number().int().min(1),
  attempt: z.number().int().min(1),
  /**
   * Why this message waited: `attempt` (first attempt, retry or replay), `deferred` (its endpoint or
   * the replica was busy), `held` (an earlier event of the payment was pending or not yet recorded),
   * `woken` (the earlier event it was held behind has finished, so its order is settled).
   */
  reason: z.enum(['attempt', 'deferred', 'held', 'woken']),
  /** Deferrals and holds so far of this attempt, for their backoff. */
  waits: z.number().int().min(0),
  /** When it began waiting for an earlier event that was not recorded yet (it waits 10 minutes at most). */
  missingSince: z.string().nullable(),
  /**
   * A retry brought forward because a later event of its payment waits for it: it is served with
   * the events' first attempts, not behind the endpoint's other retries. Absent otherwise (and in
   * messages published before it existed).
   */
  ahead: z.literal(true).optional(),
  trace: z.record(z.string(), z.string()),
});
export type WebhookAttemptMessage = z.infer<typeof WebhookAttemptMessageSchema>;

/** The notice that a store's webhook secrets changed (Subjects.storesWebhookSecretsRotated). */
export const WebhookSecretsRotatedSchema = z.object({ storeId: z.string() });
