import { Webhook, WebhookVerificationError as SignatureError } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { Webhook as WebhookBody } from './types.js';

/** Request headers as a framework hands them: a Fetch Headers, or Node's (lower-case names, maybe arrays). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const EVENT_TYPES: readonly string[] = [
  'payment.created',
  'payment.status_changed',
  'refund.created',
  'refund.succeeded',
  'refund.failed',
];

function header(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/**
 * Verifies a webhook as it arrived (the raw body, before any JSON parsing, and its headers) with
 * the store's secret (`whsec_…`), following Standard Webhooks: the signature, and a timestamp
 * within 5 minutes. Returns the event (a payment's or a refund's, told apart by `event`); throws a
 * WebhookVerificationError otherwise. Deduplicate on the `webhook-id` header: an event may arrive
 * more than once.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookBody {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let payload: unknown;
  try {
    payload = new Webhook(secret).verify(body, {
      'webhook-id': header(headers, 'webhook-id'),
      'webhook-timestamp': header(headers, 'webhook-timestamp'),
      'webhook-signature': header(headers, 'webhook-signature'),
    });
  } catch (err) {
    const reason = err instanceof SignatureError || err instanceof Error ? err.message : String(err);
    throw new WebhookVerificationError(`webhook not verified: ${reason}`, { cause: err });
  }
  const event = (payload as { event?: unknown } | null)?.event;
  if (typeof event !== 'string' || !EVENT_TYPES.includes(event)) {
    throw new WebhookVerificationError(`webhook not verified: not an event of this API (${String(event)})`);
  }
  return payload as WebhookBody;
}
