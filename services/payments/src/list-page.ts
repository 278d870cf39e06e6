import type { ListQuery, PaymentStatus } from '@pix/contracts';
import type { PaymentDoc } from './model';

/**
 * The keys a store's list is read by, newest first: `listKey` for every payment of the store,
 * `statusKey` for those in one status. Each is one string that sorts as the list does (store, then
 * status, then creation time and id), so a page is a range on one indexed field. On MongoDB a
 * compound index would do the same; on DocumentDB (the local engine) an equality on `storeId` in a
 * compound index reads the store's whole posting list, while a range on one field reads only the
 * range: a page costs what its window holds, not what the store holds.
 */
export function listKey(storeId: string, createdAt: Date, id: string): string {
  return `${storeId}|${createdAt.toISOString()}|${id}`;
}

export function statusKey(storeId: string, status: PaymentStatus, createdAt: Date, id: string): string {
  return `${storeId}|${status}|${createdAt.toISOString()}|${id}`;
}

/** Above every key of the prefix (ISO timestamps and ids are ASCII). */
const END = '\u{10FFFF}';
const HOUR_MS = 60 * 60 * 1000;
/** Each window looks this many times further back than the last. */
const WIDEN = 4;
/** A window reaching this far back is the whole store: the last one looked at. */
const WHOLE_MS = 50 * 365 * 24 * HOUR_MS;
/** A store this small (by its count) is read in one query, without windows. */
const SMALL_STORE = 1000;

export interface PageFinder {
  /** The documents whose `field` is in [from, to), by `field` descending, `skip` then `limit`. */
  find(field: 'listKey' | 'statusKey', from: string, to: string, skip: number, limit: number): Promise<PaymentDoc[]>;
}

/**
 * A page of a store's list, newest first (createdAt, then id, descending). The newest payments are
 * looked for in a window of creation time that widens (an hour back, then four times as far each
 * time) until it holds the page: a window whose range yields a full page holds every payment of the
 * page, since all it leaves out is older. A store of `count` ≤ SMALL_STORE is read in one query. So
 * a first page reads about what its window holds whatever the store's size; page p needs p × limit
 * payments in its window, so deep pages cost more.
 */
export async function findPage(
  finder: PageFinder,
  storeId: string,
  query: ListQuery,
  count: number,
  now = new Date(),
): Promise<PaymentDoc[]> {
  const [field, prefix] = query.status
    ? (['statusKey', `${storeId}|${query.status}|`] as const)
    : (['listKey', `${storeId}|`] as const);
  const skip = (query.page - 1) * query.limit;
  if (count > SMALL_STORE) {
    for (let back = HOUR_MS; back < WHOLE_MS; back *= WIDEN) {
      const since = prefix + new Date(now.getTime() - back).toISOString();
      const docs = await finder.find(field, since, prefix + END, skip, query.limit);
      if (docs.length === query.limit) return docs;
    }
  }
  return finder.find(field, prefix, prefix + END, skip, query.limit);
}
