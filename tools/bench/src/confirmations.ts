import type { NatsConnection } from '@nats-io/transport-node';
import { SandboxRpc } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import { paceRequests, type Paced } from './pace';
import type { BenchStore } from './seed';
import { percentile } from './stats';
import type { WebhookReceiver } from './webhooks';

export interface ConfirmationLatency {
  /** Confirmations sent, and the rate they actually went out at. */
  sent: number;
  ratePerSecond: number;
  /** Confirmations the sandbox PSP refused or did not answer in time. */
  refused: number;
  /** status_changed webhooks received within the wait. */
  received: number;
  /** From confirmation sent to webhook received; null when that share of webhooks never came. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** How long after the last confirmation the bench waited for the webhooks still owed. */
  waitSeconds: number;
}

const CREATE_CONCURRENCY = 16;

/**
 * Payments with the receiver as webhookUrl, created through the API (as many as `waitSeconds`
 * allows). Waits, as long again at most, until their payment.created webhooks have arrived, so
 * that the confirmations measured next do not queue behind them (a payment's webhooks go out in
 * order).
 */
export async function createWebhookPayments(
  gatewayUrl: string,
  store: BenchStore,
  receiver: WebhookReceiver,
  count: number,
  waitSeconds: number,
): Promise<string[]> {
  const ids: string[] = [];
  let attempts = 0;
  const deadline = performance.now() + waitSeconds * 1000;
  const worker = async () => {
    while (ids.length < count && attempts < count * 2 && performance.now() < deadline) {
      attempts++;
      const res = await fetch(`${gatewayUrl}/public-api/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 25.5, email: 'bench@example.com', webhookUrl: receiver.url }),
      }).catch(() => null);
      if (res?.ok) ids.push(((await res.json()) as { id: string }).id);
      else await res?.body?.cancel();
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
  await receiver.waitFor(receiver.created, ids, performance.now() + waitSeconds * 1000);
  return ids.slice(0, count);
}

/** From each request sent to its webhook's arrival (`arrivedAt`), once the webhooks still owed were waited for. */
async function latencyTo(
  arrivedAt: Map<string, number>,
  receiver: WebhookReceiver,
  paymentIds: readonly string[],
  paced: Paced,
  refused: number,
  waitSeconds: number,
): Promise<ConfirmationLatency> {
  const { sentAt, started, lastSent } = paced;
  await receiver.waitFor(arrivedAt, paymentIds, lastSent + waitSeconds * 1000);
  const latencies = paymentIds.map((id) => {
    const at = arrivedAt.get(id);
    return at === undefined ? Infinity : at - (sentAt.get(id) ?? 0);
  });
  latencies.sort((a, b) => a - b);
  const finite = (v: number | null) => (v === null || v === Infinity ? null : v);
  const sendSeconds = (lastSent - started) / 1000;
  return {
    sent: paymentIds.length,
    ratePerSecond: paymentIds.length > 1 ? (paymentIds.length - 1) / sendSeconds : paymentIds.length,
    refused,
    received: latencies.filter((v) => v !== Infinity).length,
    p50Ms: finite(percentile(latencies, 0.5)),
    p99Ms: finite(percentile(latencies, 0.99)),
    waitSeconds,
  };
}

/**
 * Pays each payment at the sandbox PSP (what `admin sandbox pay` does) at a fixed rate, whatever
 * the answers, and times each from its confirmation to its payment.status_changed webhook.
 */
export async function confirmAtFixedRate(
  nc: NatsConnection,
  receiver: WebhookReceiver,
  paymentIds: readonly string[],
  ratePerSecond: number,
  waitSeconds: number,
): Promise<ConfirmationLatency> {
  const paced = await paceRequests(paymentIds, ratePerSecond, (paymentId) =>
    callRpc(nc, SandboxRpc.pay, { paymentId }, 15_000).then(() => true),
  );
  // Measured while the answers are still coming: the webhook may arrive before the pay's answer.
  const latency = await latencyTo(receiver.statusChanged, receiver, paymentIds, paced, 0, waitSeconds);
  return { ...latency, refused: await paced.refused };
}

/**
 * Refunds part of each approved payment through the API at a fixed rate, whatever the answers, and
 * times each from its request sent to its refund.succeeded webhook: the PSP (the sandbox's, in
 * process) settles a refund and calls back, as a PSP that calls back does. A checkout without
 * refunds answers 404: nothing is measured then.
 */
export async function refundAtFixedRate(
  gatewayUrl: string,
  store: BenchStore,
  receiver: WebhookReceiver,
  paymentIds: readonly string[],
  ratePerSecond: number,
  waitSeconds: number,
): Promise<ConfirmationLatency> {
  const paced = await paceRequests(paymentIds, ratePerSecond, async (paymentId) => {
    const res = await fetch(`${gatewayUrl}/public-api/v1/payments/${paymentId}/refunds`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 5, reason: 'bench' }),
    });
    await res.body?.cancel();
    return res.ok;
  });
  const refused = await paced.refused;
  if (refused === paymentIds.length) return { ...noneMeasured(paymentIds.length, refused), waitSeconds };
  return latencyTo(receiver.refundSucceeded, receiver, paymentIds, paced, refused, waitSeconds);
}

function noneMeasured(sent: number, refused: number): Omit<ConfirmationLatency, 'waitSeconds'> {
  return { sent, ratePerSecond: 0, refused, received: 0, p50Ms: null, p99Ms: null };
}
