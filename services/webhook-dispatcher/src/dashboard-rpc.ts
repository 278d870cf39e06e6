import type { NatsConnection } from '@nats-io/transport-node';
import {
  DispatcherRpc,
  QueueGroups,
  type EndpointStats,
  type EndpointStatsReply,
  type PaymentWebhookState,
} from '@pix/contracts';
import { serveRpc, type RpcServer } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { deliveriesOfPayments, storeDeliveriesSince, type DeliverySummary } from './delivery-log';

/** The most deliveries one failure-rate summary reads: it stays one bounded query however busy the store. */
export const STATS_READ_LIMIT = 10_000;

/** A delivery as the dashboard sums it up: a pending one that has failed at least once is failing. */
export function deliveryState(d: Pick<DeliverySummary, 'status' | 'lastError'>): PaymentWebhookState {
  if (d.status === 'pending') return d.lastError ? 'failing' : 'pending';
  return d.status;
}

const SEVERITY: Record<PaymentWebhookState, number> = { failing: 3, dead: 2, pending: 1, delivered: 0 };

/** Each payment's worst delivery state: what the merchant should look at first. */
export function paymentStates(deliveries: DeliverySummary[]): { paymentId: string; state: PaymentWebhookState }[] {
  const worst = new Map<string, PaymentWebhookState>();
  for (const d of deliveries) {
    const state = deliveryState(d);
    const seen = worst.get(d.paymentId);
    if (seen === undefined || SEVERITY[state] > SEVERITY[seen]) worst.set(d.paymentId, state);
  }
  return [...worst].map(([paymentId, state]) => ({ paymentId, state }));
}

/** Deliveries summed per endpoint (the payment's webhookUrl), the worst failure rate first. */
export function endpointStats(deliveries: DeliverySummary[]): EndpointStats[] {
  const byUrl = new Map<string, EndpointStats>();
  for (const d of deliveries) {
    let stats = byUrl.get(d.url);
    if (!stats) {
      stats = { url: d.url, deliveries: 0, delivered: 0, pending: 0, failing: 0, dead: 0, attempts: 0 };
      byUrl.set(d.url, stats);
    }
    stats.deliveries += 1;
    stats[deliveryState(d)] += 1;
    stats.attempts += d.earlierRunsAttempts + d.runAttempts;
  }
  const rate = (s: EndpointStats) => (s.failing + s.dead) / s.deliveries;
  return [...byUrl.values()].sort((a, b) => rate(b) - rate(a) || b.deliveries - a.deliveries);
}

/**
 * What the gateway's dashboard asks the delivery log beyond the Events API: the webhook state of
 * a page of payments, and the failure rates per endpoint. The store always comes from the caller's
 * session, never from the merchant's request.
 */
export function serveDashboardRpcs(nc: NatsConnection, logger: Logger): RpcServer[] {
  const rpc = { queue: QueueGroups.webhookDispatcher, logger };
  return [
    serveRpc(
      nc,
      DispatcherRpc.paymentWebhookStates,
      async (req) => ({ states: paymentStates(await deliveriesOfPayments(req.storeId, req.livemode, req.paymentIds)) }),
      rpc,
    ),
    serveRpc(
      nc,
      DispatcherRpc.endpointStats,
      async (req): Promise<EndpointStatsReply> => {
        const read = await storeDeliveriesSince(req.storeId, req.livemode, new Date(req.since), STATS_READ_LIMIT);
        return {
          since: req.since,
          endpoints: endpointStats(read),
          truncated: read.length >= STATS_READ_LIMIT,
          read: read.length,
        };
      },
      rpc,
    ),
  ];
}
