import type { ClientRequest, IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { got, keptAliveAgents } from '@pix/http';
import type { PaymentEvent, WebhookAttemptOutcome } from '@pix/contracts';
import { traceContextHeaders } from '@pix/observability';
import packageJson from '../package.json';
import { guardedLookup, refuseUrl, type TargetRefused } from './target-policy';

export const USER_AGENT = `pix-payments-webhooks/${packageJson.version}`;
/**
 * Only the status code matters. A receiver's answer is read up to this size and then cut off, so an
 * endpoint streaming a huge body cannot fill the dispatcher's memory.
 */
const MAX_RESPONSE_BYTES = 64 * 1024;
/**
 * Connections to an endpoint are kept between attempts, as receivers expect of a webhook sender: a
 * new connection (and TLS handshake) per event cost more than the event. The pool is by host and
 * port, and a socket goes to the address the guard checked when it was opened, so reuse cannot
 * reach anywhere the guard refuses.
 */
const agent = keptAliveAgents();

export interface AttemptResult {
  outcome: WebhookAttemptOutcome;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliverOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: skip the SSRF guard (local development). */
  allowPrivate: boolean;
}

/**
 * One delivery attempt: POST the webhook body, signed with every current secret of the store
 * (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature). Only a 2xx within the
 * timeout counts; redirects are not followed; the answer's body is not kept. Unless private targets
 * are allowed, the target is checked on this attempt, after DNS resolution, and the connection goes
 * to the checked address.
 */
export async function deliver(
  event: PaymentEvent,
  url: string,
  secrets: string[],
  options: DeliverOptions,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const early = refuseUrl(url, options.allowPrivate);
  if (early) return { outcome: 'refused', statusCode: null, latencyMs: elapsed(), error: early.message };

  const payload = JSON.stringify(event.body);
  const timestamp = new Date();
  const signatures = secrets.map((secret) => new Webhook(secret).sign(event.eventId, timestamp, payload));
  let refusal: TargetRefused | undefined;
  const request = got.post(url, {
    body: payload,
    headers: {
      ...traceContextHeaders(),
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': event.eventId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    },
    agent,
    ...(options.allowPrivate ? {} : { dnsLookup: guardedLookup((refused) => (refusal = refused)) }),
    timeout: { request: options.timeoutMs },
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
  });
  let answeredWith: number | undefined;
  // got reports the response only once its body is read; the status is known as soon as the headers arrive.
  request.on('request', (clientRequest: ClientRequest) =>
    clientRequest.once('response', (response: IncomingMessage) => (answeredWith = response.statusCode)),
  );
  request.on('downloadProgress', ({ transferred }) => {
    if (transferred > MAX_RESPONSE_BYTES) request.cancel();
  });
  try {
    return byStatus((await request).statusCode, elapsed());
  } catch (err) {
    if (refusal) return { outcome: 'refused', statusCode: null, latencyMs: elapsed(), error: refusal.message };
    if (request.isCanceled && answeredWith !== undefined) return byStatus(answeredWith, elapsed());
    return {
      outcome: 'failure',
      statusCode: null,
      latencyMs: elapsed(),
      error: err instanceof Error ? err.message : String(err),
    };
  }
}

function byStatus(statusCode: number, latencyMs: number): AttemptResult {
  if (statusCode >= 200 && statusCode < 300) return { outcome: 'success', statusCode, latencyMs, error: null };
  return { outcome: 'failure', statusCode, latencyMs, error: `HTTP ${statusCode}` };
}
