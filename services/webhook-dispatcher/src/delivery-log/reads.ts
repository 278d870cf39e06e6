import type { EventListQuery } from '@pix/contracts';
import { deliveries, type DeliveryDoc } from './records';

/**
 * The delivery log as its readers see it: the Events API, the admin CLI's `webhooks list` and
 * replay, and the dashboard's summaries. Each is one command served by an index of the schema
 * (tests/service/hot-queries-explain.test.ts); the attempts come inside their delivery.
 */

/**
 * A store's deliveries in one mode. Those recorded before modes have no livemode and are test
 * ones, hence `$ne: true` rather than `false`; the filter applies within the store's index range
 * (a store's events of both modes are few beside the collection), so every read keeps its index.
 */
function inMode(livemode: boolean): Record<string, unknown> {
  return livemode ? { livemode: true } : { livemode: { $ne: true } };
}

/** A delivery without its attempts: what a list shows. */
const WITHOUT_ATTEMPTS = { projection: { attempts: 0 } } as const;

export function findDelivery(eventId: string): Promise<DeliveryDoc | null> {
  return deliveries().findOne({ _id: eventId });
}

/**
 * One store's delivery of an event in the mode, with its attempts; another store's or mode's, or
 * none, is null (the same answer).
 */
export function findStoreDelivery(storeId: string, livemode: boolean, eventId: string): Promise<DeliveryDoc | null> {
  return deliveries().findOne({ _id: eventId, storeId, ...inMode(livemode) });
}

/** A payment's deliveries in event order, each with its attempts (a payment has a few of each). */
export function deliveriesOf(paymentId: string): Promise<DeliveryDoc[]> {
  return deliveries().find({ paymentId }).sort({ sequence: 1 }).toArray();
}

/**
 * A page of a store's events, newest first (recorded, then id, descending), and how many match:
 * two commands, each an equality filter on the store (and the type or payment). MongoDB sorts with
 * the compound indexes; the local engine finds the store's deliveries by its index and sorts them.
 */
export async function storeDeliveries(
  storeId: string,
  livemode: boolean,
  query: EventListQuery,
): Promise<{ docs: DeliveryDoc[]; total: number }> {
  const filter = {
    storeId,
    ...inMode(livemode),
    ...(query.type ? { type: query.type } : {}),
    ...(query.paymentId ? { paymentId: query.paymentId } : {}),
  };
  const [docs, total] = await Promise.all([
    deliveries()
      .find(filter, WITHOUT_ATTEMPTS)
      .sort({ createdAt: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .toArray(),
    deliveries().countDocuments(filter),
  ]);
  return { docs, total };
}

/** A delivery's fields the dashboard's summaries read. */
export type DeliverySummary = Pick<
  DeliveryDoc,
  'paymentId' | 'url' | 'status' | 'runAttempts' | 'earlierRunsAttempts' | 'lastError'
>;
const SUMMARY_FIELDS = { paymentId: 1, url: 1, status: 1, runAttempts: 1, earlierRunsAttempts: 1, lastError: 1 };

/**
 * The deliveries of some of a store's payments (one page of the dashboard's list, at most a few
 * hundred ids): an `$in` on the payment index, each payment having a few deliveries.
 */
export function deliveriesOfPayments(
  storeId: string,
  livemode: boolean,
  paymentIds: string[],
): Promise<DeliverySummary[]> {
  if (paymentIds.length === 0) return Promise.resolve([]);
  return deliveries()
    .find({ paymentId: { $in: paymentIds }, storeId, ...inMode(livemode) }, { projection: SUMMARY_FIELDS })
    .toArray();
}

/**
 * A store's deliveries recorded since `since`, newest first, at most `limit` (the dashboard's
 * failure rates over 24 h): a range on `{storeId, createdAt, _id}`, bounded, so a busy store costs
 * one read of at most `limit` small documents.
 */
export function storeDeliveriesSince(
  storeId: string,
  livemode: boolean,
  since: Date,
  limit: number,
): Promise<DeliverySummary[]> {
  return deliveries()
    .find({ storeId, ...inMode(livemode), createdAt: { $gte: since } }, { projection: SUMMARY_FIELDS })
    .sort({ createdAt: -1, _id: -1 })
    .limit(limit)
    .toArray();
}
