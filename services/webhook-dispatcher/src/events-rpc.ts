import type { NatsConnection } from '@nats-io/transport-node';
import {
  DispatcherRpc,
  DomainError,
  QueueGroups,
  type EventAttempt,
  type EventListQuery,
  type EventRedelivery,
  type PublicEvent,
  type PublicEventDetail,
  type PublicEventList,
} from '@pix/contracts';
import { jetstream, serveRpc, type JetStreamClient, type RpcServer } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import {
  findStoreDelivery,
  storeDeliveries,
  type AttemptEntry,
  type DeliveryDoc,
  type DeliveryLog,
} from './delivery-log';
import { replay } from './replay';

/** A delivery as the Events API shows it: the event as sent, and how its delivery stands. */
function toEvent(doc: DeliveryDoc): PublicEvent {
  return {
    id: doc._id,
    type: doc.event.body.event,
    paymentId: doc.paymentId,
    // An event recorded before modes carries none in its body: a test one.
    livemode: doc.event.body.livemode === true,
    createdAt: new Date(doc.event.occurredAt).toISOString(),
    body: doc.event.body,
    status: doc.status,
    attemptCount: doc.earlierRunsAttempts + doc.runAttempts,
    nextAttemptAt: doc.status === 'pending' ? (doc.nextAttemptAt?.toISOString() ?? null) : null,
  };
}

/** One attempt as the Events API and `webhooks list` show it. */
export function toAttempt(a: AttemptEntry): EventAttempt {
  return {
    run: a.run,
    attempt: a.attempt,
    at: a.at.toISOString(),
    outcome: a.outcome,
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    error: a.error,
  };
}

/** A store's data in one mode, as the gateway's token or session says. */
interface Scope {
  storeId: string;
  livemode: boolean;
}

export async function listEvents({ storeId, livemode }: Scope, query: EventListQuery): Promise<PublicEventList> {
  const { docs, total } = await storeDeliveries(storeId, livemode, query);
  return { items: docs.map(toEvent), page: query.page, limit: query.limit, total };
}

/** Only the store's own event in the mode: another store's or mode's and an unknown one are the same 404. */
async function storeDelivery({ storeId, livemode }: Scope, eventId: string): Promise<DeliveryDoc> {
  const doc = await findStoreDelivery(storeId, livemode, eventId);
  if (!doc) throw new DomainError('event_not_found');
  return doc;
}

export async function getEvent(scope: Scope, eventId: string): Promise<PublicEventDetail> {
  const doc = await storeDelivery(scope, eventId);
  return { ...toEvent(doc), attempts: doc.attempts.map(toAttempt) };
}

export async function redeliverEvent(
  js: JetStreamClient,
  log: DeliveryLog,
  scope: Scope,
  eventId: string,
): Promise<EventRedelivery> {
  const run = await replay(js, log, await storeDelivery(scope, eventId));
  if (run === null) throw new DomainError('event_still_pending');
  return { id: eventId, status: 'pending', run };
}

/** The Events API's requests from the gateway, served in the dispatcher's queue group. */
export function serveEventRpcs(nc: NatsConnection, log: DeliveryLog, logger: Logger): RpcServer[] {
  const rpc = { queue: QueueGroups.webhookDispatcher, logger };
  const js = jetstream(nc);
  return [
    serveRpc(nc, DispatcherRpc.eventsList, (req) => listEvents(req, req.query), rpc),
    serveRpc(nc, DispatcherRpc.eventsGet, (req) => getEvent(req, req.eventId), rpc),
    serveRpc(nc, DispatcherRpc.eventsRedeliver, (req) => redeliverEvent(js, log, req, req.eventId), rpc),
  ];
}
