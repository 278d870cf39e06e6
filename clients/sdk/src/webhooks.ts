import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { Webhook as WebhookBody } from './types.js';

/** Request headers as a framework hands them: a Fetch Headers, or Node's (lower-case names, maybe arrays). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** Every event this API sends; keyed by the OpenAPI document's own union, so a new event fails the build until it is here. */
const EVENT_TYPES: Record<WebhookBody['event'], true> = {
  'payment.created': true,
  'payment.status_changed': true,
  'refund.created': true,
  'refund.succeeded': true,
  'refund.failed': true,
  'payment.dispute_opened': true,
  'payment.dispute_reminder': true,
  'payment.dispute_closed': true,
};

function header(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}

/** What verification may be told besides the webhook and the secret. */
export interface VerifyOptions {
  /** The time to check the timestamp against (a Date, or Unix seconds); the real clock by default. */
  now?: Date | number;
}

/** Standard Webhooks' tolerance: a timestamp more than this away from now, either way, is refused. */
const TOLERANCE_SECONDS = 5 * 60;

/** Compares in time that does not depend on where the strings differ, as the signature check must. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * The signature and the timestamp, as the `standardwebhooks` package's verify checks them but
 * against `now`: its own verify reads only the real clock, and fixed test fixtures need another.
 * The HMAC is still the package's (`sign`).
 */
function verifySignature(body: string, headers: WebhookHeaders, secret: string, now: number): unknown {
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatures) throw new Error('Missing required headers');
  const timestamp = Number.parseInt(timestampHeader, 10);
  if (Number.isNaN(timestamp)) throw new Error('Invalid Signature Headers');
  if (now - timestamp > TOLERANCE_SECONDS) throw new Error('Message timestamp too old');
  if (timestamp > now + TOLERANCE_SECONDS) throw new Error('Message timestamp too new');
  const expected = new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
  // Several space-separated signatures while a secret is rotated; any one of version v1 will do.
  if (!signatures.split(' ').some((signature) => sameText(signature, expected))) {
    throw new Error('No matching signature found');
  }
  return JSON.parse(body) as unknown;
}

/**
 * Verifies a webhook as it arrived (the raw body, before any JSON parsing, and its headers) with
 * the store's secret (`whsec_…`), following Standard Webhooks: the signature, and a timestamp
 * within 5 minutes of now (`options.now`, the real clock unless given). Returns the event (a
 * payment's or a refund's, told apart by `event`); throws a WebhookVerificationError otherwise.
 * Deduplicate on the `webhook-id` header: an event may arrive more than once.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): WebhookBody {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const now =
    options.now === undefined
      ? Math.floor(Date.now() / 1000)
      : Math.floor(typeof options.now === 'number' ? options.now : options.now.getTime() / 1000);
  let payload: unknown;
  try {
    payload = verifySignature(body, headers, secret, now);
  } catch (err) {
    throw new WebhookVerificationError(`webhook not verified: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  const event = (payload as { event?: unknown } | null)?.event;
  if (typeof event !== 'string' || !Object.hasOwn(EVENT_TYPES, event)) {
    throw new WebhookVerificationError(`webhook not verified: not an event of this API (${String(event)})`);
  }
  return payload as WebhookBody;
}
