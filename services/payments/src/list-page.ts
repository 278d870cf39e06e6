import type { ListQuery, PaymentStatus } from '@pix/contracts';
import { LRUCache } from 'lru-cache';
import type { PaymentDoc } from './model';

/**
 * The keys a store's list is read by, newest first: `listKey` for every payment of the store in
 * one mode, `statusKey` for those in one status. Each is one string that sorts as the list does
 * (store and mode, then status, then creation time and id), so a page is a range on one indexed
 * field. `scope` is the store in its mode (modeScope: the bare store id in test mode, so the keys
 * written before modes are test mode's as they are). On MongoDB a
 * compound index would do the same; on DocumentDB (the local engine) an equality on `storeId` in a
 * compound index reads the store's whole posting list, while a range on one field reads only the
 * range: a page costs what its window holds, not what the store holds.
 */
export function listKey(scope: string, createdAt: Date, id: string): string {
  return `${scope}|${createdAt.toISOString()}|${id}`;
}

export function statusKey(scope: string, status: PaymentStatus, createdAt: Date, id: string): string {
  return `${scope}|${status}|${createdAt.toISOString()}|${id}`;
}

/** Above every key of the prefix (ISO timestamps and ids are ASCII). */
const END = '\u{10FFFF}';
const HOUR_MS = 60 * 60 * 1000;
/** Each window looks at least this many times further back than the last. */
const WIDEN = 4;
/** A window that yielded nothing of its page: the next looks this many times further back. */
const WIDEN_EMPTY = 16;
/** A window reaching this far back is the whole store: the last one looked at. */
const WHOLE_MS = 50 * 365 * 24 * HOUR_MS;
/** A store this small (by its count) is read in one query, without windows. */
const SMALL_STORE = 1000;
/** A window from a hint looks this many times as far back as the last page needed. */
const HINT_MARGIN = 2;
/**
 * The narrowest window: a store creating a page a millisecond still reads one. A list with no hint
 * starts here (per page of depth): a store that has just received 20,000 payments in a minute reads
 * a second of them (about 300), not the hour's 20,000, and each of 32 clients asking at once pays that.
 */
const NARROWEST_MS = 1000;

export interface PageFinder {
  /** The documents whose `field` is in [from, to), by `field` descending, `skip` then `limit`. */
  find(field: 'listKey' | 'statusKey', from: string, to: string, skip: number, limit: number): Promise<PaymentDoc[]>;
}

/**
 * How far back each list's last full page reached (per page of depth) and when, by store and
 * status: the width of the next window to look in. The local engine reads and sorts every payment
 * a window holds (its index cannot return them in order), so a store that created 20,000 payments
 * in the last hour would cost 20,000 documents a page in a fixed first window; the hint follows
 * the store's recent pace instead. A hint only: a window that holds less than the page widens as
 * without one, so a wrong or lost hint costs queries, never a wrong page. Per process and bounded.
 */
export class PageWindows {
  private readonly reach = new LRUCache<string, { perPageMs: number; at: number }>({ max: 10_000 });

  /** The window to look in first for page `page`, or null when this list has no hint. */
  first(list: string, page: number, now: number): number | null {
    const hint = this.reach.get(list);
    if (!hint) return null;
    // A store that went quiet since is as many milliseconds further back as have passed.
    return Math.max(NARROWEST_MS, hint.perPageMs * page * HINT_MARGIN) + Math.max(0, now - hint.at);
  }

  /** A full page was found: its oldest payment was `reachMs` back at `now`. */
  record(list: string, page: number, reachMs: number, now: number): void {
    this.reach.set(list, { perPageMs: Math.max(0, reachMs) / page, at: now });
  }
}

/** The page of a list asked for: `page` from 1, `limit` items a page. */
export interface PageOf {
  page: number;
  limit: number;
}

/**
 * A page of a list read by a key `<prefix><ISO creation time>|<id>` (a store's payments, its
 * balance transactions), newest first, between `since` and `until` (absent: the whole list, up to
 * now and past it). The newest are looked for in a window of creation time that widens (from the
 * list's hint, PageWindows, else a second back per page of depth; then as far back as the pace the
 * last window showed needs, at least four times as far) until it holds the page: a window whose
 * range yields a full page holds every item of the page, since all it leaves out is older. A list
 * of `count` ≤ SMALL_STORE is read in one query. So a first page reads about what its window holds
 * whatever the list's size or pace, cold or not; page p needs p × limit items in its window, so
 * deep pages cost more.
 */
export async function newestFirst<D extends { createdAt: Date }>(
  find: (from: string, to: string, skip: number, limit: number) => Promise<D[]>,
  windows: PageWindows,
  prefix: string,
  page: PageOf,
  count: number,
  bounds: { since?: Date; until?: Date; now: Date },
): Promise<D[]> {
  const skip = (page.page - 1) * page.limit;
  const lowest = bounds.since ? prefix + bounds.since.toISOString() : prefix;
  const highest = bounds.until ? prefix + bounds.until.toISOString() : prefix + END;
  if (count > SMALL_STORE) {
    const at = Math.min(bounds.now.getTime(), bounds.until?.getTime() ?? Number.POSITIVE_INFINITY);
    const earliest = bounds.since?.getTime() ?? at - WHOLE_MS;
    let back = windows.first(prefix, page.page, at) ?? NARROWEST_MS * page.page;
    while (at - back > earliest) {
      const docs = await find(prefix + new Date(at - back).toISOString(), highest, skip, page.limit);
      const oldest = docs.at(-1);
      if (oldest && docs.length === page.limit) {
        windows.record(prefix, page.page, at - oldest.createdAt.getTime(), at);
        return docs;
      }
      back *= widening(docs.length, skip, page.limit);
    }
  }
  return find(lowest, highest, skip, page.limit);
}

/** A page of a store's payments (the status's, if the query names one), newest first: newestFirst by its key. */
export function findPage(
  finder: PageFinder,
  windows: PageWindows,
  scope: string,
  query: ListQuery,
  count: number,
  now = new Date(),
): Promise<PaymentDoc[]> {
  const [field, prefix] = query.status
    ? (['statusKey', `${scope}|${query.status}|`] as const)
    : (['listKey', `${scope}|`] as const);
  return newestFirst(
    (from, to, skip, limit) => finder.find(field, from, to, skip, limit),
    windows,
    prefix,
    query,
    count,
    {
      now,
    },
  );
}

/**
 * How many times further back the next window looks after one that yielded `found` of a page.
 * A window that yielded some held exactly `skip + found` payments: the pace it shows, with the
 * hint's margin, says how far back the page is. One that yielded none tells little (it held at
 * most `skip`), so the next looks much further.
 */
function widening(found: number, skip: number, limit: number): number {
  if (found === 0) return WIDEN_EMPTY;
  return Math.max(WIDEN, Math.ceil(((skip + limit) * HINT_MARGIN) / (skip + found)));
}
