import { Webhook } from 'standardwebhooks';
import { got } from '@pix/http';
import type { PaymentEvent } from '@pix/contracts';
import packageJson from '../package.json';

export const USER_AGENT = `pix-payments-webhooks/${packageJson.version}`;

export type DeliveryResult = { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/**
 * One delivery attempt: POST the webhook body, signed with every current secret of the store
 * (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature). Only a 2xx within the
 * timeout counts; redirects are not followed.
 */
export async function deliver(
  event: PaymentEvent,
  url: string,
  secrets: string[],
  timeoutMs: number,
): Promise<DeliveryResult> {
  const payload = JSON.stringify(event.body);
  const timestamp = new Date();
  const signatures = secrets.map((secret) => new Webhook(secret).sign(event.eventId, timestamp, payload));
  try {
    const response = await got.post(url, {
      body: payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': event.eventId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signatures.join(' '),
      },
      timeout: { request: timeoutMs },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
    });
    const statusCode = response.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
    return { ok: false, statusCode, error: `HTTP ${statusCode}` };
  } catch (err) {
    return { ok: false, statusCode: null, error: err instanceof Error ? err.message : String(err) };
  }
}
