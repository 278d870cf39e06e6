import type { NatsConnection } from '@nats-io/transport-node';
import {
  QueueGroups,
  Subjects,
  WebhookAdminMessages,
  WebhooksListRequestSchema,
  WebhooksReplayRequestSchema,
  type WebhookDelivery,
} from '@pix/contracts';
import { RpcFailure, serveRpc, type RpcServer } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { AttemptModel, DeliveryModel, type AttemptDoc, type DeliveryDoc } from './deliveries';

/** A payment's deliveries in event order, each with its attempts: the delivery log as admins read it. */
export async function listDeliveries(paymentId: string): Promise<{ paymentId: string; deliveries: WebhookDelivery[] }> {
  const [deliveries, attempts] = await Promise.all([
    DeliveryModel.find({ paymentId: { $eq: paymentId } })
      .sort({ sequence: 1 })
      .lean<DeliveryDoc[]>(),
    AttemptModel.find({ paymentId: { $eq: paymentId } })
      .sort({ at: 1 })
      .lean<AttemptDoc[]>(),
  ]);
  return {
    paymentId,
    deliveries: deliveries.map((doc) => ({
      eventId: doc._id,
      event: doc.event.body.event,
      sequence: doc.sequence,
      url: doc.url,
      status: doc.status,
      nextAttemptAt: doc.status === 'pending' ? (doc.nextAttemptAt?.toISOString() ?? null) : null,
      attempts: attempts
        .filter((a) => a.eventId === doc._id)
        .map((a) => ({
          run: a.run,
          attempt: a.attempt,
          at: a.at.toISOString(),
          outcome: a.outcome,
          statusCode: a.statusCode,
          latencyMs: a.latencyMs,
          error: a.error,
        })),
    })),
  };
}

/**
 * Delivers a finished event again (delivered or dead-lettered) as a new run with the full retry
 * schedule and the same webhook-id. A delivery still being retried is refused: it is on its way.
 */
export async function replayDelivery(eventId: string): Promise<{ eventId: string; status: 'pending'; run: number }> {
  const doc = await DeliveryModel.findById(eventId).select({ status: 1, run: 1 }).lean<DeliveryDoc>();
  if (!doc) throw new RpcFailure(404, WebhookAdminMessages.deliveryNotFound(eventId));
  const replayed =
    doc.status !== 'pending' &&
    (
      await DeliveryModel.updateOne(
        { _id: doc._id, status: doc.status, run: doc.run },
        {
          $set: {
            status: 'pending',
            attempts: 0,
            nextAttemptAt: new Date(),
            heldForOrder: false,
            deadReason: null,
            lastError: null,
            deadLetteredAt: null,
            expiresAt: null,
          },
          $inc: { run: 1 },
        },
      )
    ).modifiedCount === 1;
  if (!replayed) throw new RpcFailure(409, WebhookAdminMessages.deliveryStillPending(eventId));
  return { eventId, status: 'pending', run: doc.run + 1 };
}

/** The webhook admin commands, served over NATS in the dispatcher's queue group. */
export function serveWebhookRpcs(nc: NatsConnection, logger: Logger, onReplay: () => void): RpcServer[] {
  const queue = QueueGroups.webhookDispatcher;
  return [
    serveRpc(nc, { subject: Subjects.adminWebhooksList, queue, schema: WebhooksListRequestSchema, logger }, (req) =>
      listDeliveries(req.paymentId),
    ),
    serveRpc(
      nc,
      { subject: Subjects.adminWebhooksReplay, queue, schema: WebhooksReplayRequestSchema, logger },
      async (req) => {
        const reply = await replayDelivery(req.eventId);
        onReplay();
        return reply;
      },
    ),
  ];
}
