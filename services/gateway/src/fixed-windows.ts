import type { LRUCache } from 'lru-cache';
import { boundedCache } from './bounded-cache';

/** One key's count in its current window, and when that window ends. */
export interface Window {
  count: number;
  endsAt: number;
}

/**
 * Counts per key (a client address) in fixed windows, in this replica's memory: the door's refused
 * tokens and the public routes' requests. At most `maxKeys` keys are kept, the least recently seen
 * forgotten first, and a window is forgotten when it ends.
 */
export class FixedWindows {
  private readonly windows: LRUCache<string, Window>;

  constructor(
    private readonly windowMs: number,
    maxKeys: number,
    private readonly now: () => number,
  ) {
    this.windows = boundedCache<string, Window>(maxKeys, { ttl: windowMs, ttlAutopurge: false, perf: { now } });
  }

  /** Counts one for the key in its open window (a new one when none is open), and returns that window. */
  add(key: string): Window {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return window;
  }

  /** The key's open window, if it has one. */
  current(key: string): Window | undefined {
    const window = this.windows.get(key);
    return window && window.endsAt > this.now() ? window : undefined;
  }

  /** Keys tracked now (bounded by maxKeys). */
  get size(): number {
    return this.windows.size;
  }
}

/** The whole seconds until a window ends, at least 1: what Retry-After says. */
export function secondsUntil(endsAt: number, now: number): number {
  return Math.max(1, Math.ceil((endsAt - now) / 1000));
}
