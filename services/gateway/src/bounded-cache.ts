import { LRUCache } from 'lru-cache';

/** What lru-cache takes as a key or a value: anything but null and undefined. */
type Defined = NonNullable<unknown>;

type Options<K extends Defined, V extends Defined> = Omit<
  LRUCache.Options<K, V, unknown>,
  'max' | 'maxSize' | 'sizeCalculation'
>;

/**
 * An LRU cache of at most `entries` entries (the least recently used forgotten first) whose memory
 * grows with what it holds. lru-cache's `max` allocates its arrays for `max` entries up front and
 * fills them: the gateway's auth caches, sized for a million tokens and a hundred thousand of each
 * other kind, held 24 MB of empty slots from the start (a heap snapshot, issue 27), a sixth of the
 * gateway's memory. Counting every entry as 1 against `maxSize` bounds the count the same way,
 * with arrays that grow as entries arrive.
 */
export function boundedCache<K extends Defined, V extends Defined>(
  entries: number,
  options: Options<K, V> = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: entries, sizeCalculation: () => 1 });
}
