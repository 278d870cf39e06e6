import ipaddr from 'ipaddr.js';
import type { LRUCache } from 'lru-cache';
import { Counter, type Registry } from '@pix/observability';
import { boundedCache } from './bounded-cache';

export interface AuthFailureLimit {
  /** Failed authentications one client address may make per window. */
  failures: number;
  windowMs: number;
  /** Addresses tracked at once; the least recently seen are forgotten first. */
  maxAddresses?: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

/**
 * The key a client is counted under: its IPv4 address, or the /64 of its IPv6 address (one
 * customer's network holds a whole /64, so counting single IPv6 addresses would count nothing).
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${network.map((group) => group.toString(16)).join(':')}::/64`;
}

/**
 * Failed bearer authentications per client address, in fixed windows, in this replica's memory.
 * Past the limit an address is throttled until its window ends: its further failures are answered
 * 429 without a database read (auth.ts). Memory is bounded: at most `maxAddresses` windows are
 * kept, each forgotten when it ends.
 */
export class AuthFailures {
  private readonly windows: LRUCache<string, Window>;
  private readonly answers: Counter<'answer'>;

  constructor(
    private readonly limit: AuthFailureLimit,
    registry: Registry,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = boundedCache<string, Window>(limit.maxAddresses ?? 50_000, {
      ttl: limit.windowMs,
      ttlAutopurge: false,
      perf: { now },
    });
    this.answers = new Counter({
      name: 'auth_failures_total',
      help: 'Bearer tokens refused, by answer: 401 below the per-address limit, 429 past it',
      labelNames: ['answer'],
      registers: [registry],
    });
  }

  /** Seconds until the address may fail again, while it is over the limit; null otherwise. */
  throttled(key: string): number | null {
    const window = this.windows.get(key);
    const left = window ? window.endsAt - this.now() : 0;
    if (!window || window.failures < this.limit.failures || left <= 0) return null;
    return Math.max(1, Math.ceil(left / 1000));
  }

  /** Counts one refused token from the address. */
  failed(key: string): void {
    const now = this.now();
    const window = this.windows.get(key);
    if (window && window.endsAt > now) window.failures++;
    else this.windows.set(key, { failures: 1, endsAt: now + this.limit.windowMs });
    this.answers.inc({ answer: '401' });
  }

  /** Counts one 429 (a failure past the limit, not counted against the window again). */
  refused(): void {
    this.answers.inc({ answer: '429' });
  }

  /** Addresses tracked now (bounded by maxAddresses). */
  get size(): number {
    return this.windows.size;
  }
}
