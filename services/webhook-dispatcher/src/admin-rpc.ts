import type { NatsConnection } from '@nats-io/transport-node';
import { DispatcherRpc, DomainError, QueueGroups, type WebhookDelivery } from '@pix/contracts';
import { jetstream, serveRpc, type JetStreamClient, type RpcServer } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { deliveriesOf, findDelivery, type DeliveryLog } from './delivery-log';
import { toAttempt } from './events-rpc';
import { replay } from './replay';

/** A payment's deliveries in event order, each with its attempts: the delivery log as admins read it. */
export async function listDeliveries(paymentId: string): Promise<{ paymentId: string; deliveries: WebhookDelivery[] }> {
  const deliveries = await deliveriesOf(paymentId);
  return {
    paymentId,
    deliveries: deliveries.map((doc) => ({
      eventId: doc._id,
      event: doc.event.body.event,
      sequence: doc.sequence,
      url: doc.url,
      status: doc.status,
      nextAttemptAt: doc.status === 'pending' ? (doc.nextAttemptAt?.toISOString() ?? null) : null,
      attempts: doc.attempts.map(toAttempt),
    })),
  };
}

/** `webhooks replay`: see replay(); refusals in the CLI's words. */
export async function replayDelivery(
  js: JetStreamClient,
  log: DeliveryLog,
  eventId: string,
): Promise<{ eventId: string; status: 'pending'; run: number }> {
  const doc = await findDelivery(eventId);
  if (!doc) throw new DomainError('delivery_not_found', { eventId });
  const run = await replay(js, log, doc);
  if (run === null) throw new DomainError('delivery_still_pending', { eventId });
  return { eventId, status: 'pending', run };
}

/** The webhook admin commands, served over NATS in the dispatcher's queue group. */
export function serveWebhookRpcs(nc: NatsConnection, log: DeliveryLog, logger: Logger): RpcServer[] {
  const rpc = { queue: QueueGroups.webhookDispatcher, logger };
  const js = jetstream(nc);
  return [
    serveRpc(nc, DispatcherRpc.webhooksList, (req) => listDeliveries(req.paymentId), rpc),
    serveRpc(nc, DispatcherRpc.webhooksReplay, (req) => replayDelivery(js, log, req.eventId), rpc),
  ];
}
