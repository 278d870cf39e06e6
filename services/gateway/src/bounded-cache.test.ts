import { boundedCache } from './bounded-cache';

describe('boundedCache', () => {
  it('keeps at most its entries, forgetting the least recently used first', () => {
    const cache = boundedCache<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
    cache.get('a');
    cache.set('d', 3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    expect(cache.size).toBe(3);
  });

  it('forgets an entry past its ttl', () => {
    let now = 1;
    const cache = boundedCache<string, true>(10, { ttl: 1000, ttlResolution: 0, perf: { now: () => now } });
    cache.set('a', true);
    now = 1000;
    expect(cache.has('a')).toBe(true);
    now = 1002;
    expect(cache.has('a')).toBe(false);
  });

  it('allocates nothing for the entries it does not hold', () => {
    const before = process.memoryUsage().arrayBuffers;
    const caches = Array.from({ length: 20 }, () => boundedCache<string, true>(1_000_000));
    caches[0]?.set('a', true);
    // lru-cache's `max: 1_000_000` would take 12 MB of typed arrays for each, 240 MB in all.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1_000_000);
  });
});
