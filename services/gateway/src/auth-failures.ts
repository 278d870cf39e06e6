import ipaddr from 'ipaddr.js';
import { Counter, type Registry } from '@pix/observability';
import { FixedWindows, secondsUntil, type Window } from './fixed-windows';

export interface AuthFailureLimit {
  /** Failed authentications one client address may make per window. */
  failures: number;
  /**
   * Failed authentications all addresses together may make per window on this replica: what bounds
   * the database reads of a guess spread over many addresses.
   */
  replicaFailures: number;
  windowMs: number;
  /** Addresses tracked at once; the least recently seen are forgotten first. */
  maxAddresses?: number;
}

/** Which limit throttles: the presenting address's own, or the replica's over every address. */
export type AuthFailureScope = 'address' | 'replica';

/** A throttled presentation: which limit, and the seconds until it may fail again. */
export interface Throttled {
  scope: AuthFailureScope;
  retryAfterSeconds: number;
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
 * Failed bearer authentications per client address, and over all addresses together, in fixed
 * windows, in this replica's memory. Past an address's limit that address is throttled until its
 * window ends; past the replica's, every address is, until the replica's window ends: further
 * tokens memory cannot judge are answered 429 without a database read (auth.ts). So a guess spread
 * over any number of addresses (behind a proxy, X-Forwarded-For is whatever the client says
 * before the proxy's own entry) costs at most `replicaFailures` reads a window. Memory is bounded:
 * at most `maxAddresses` windows are kept, each forgotten when it ends.
 */
export class AuthFailures {
  private readonly windows: FixedWindows;
  private replica: Window = { count: 0, endsAt: 0 };
  private readonly answers: Counter<'answer' | 'limit'>;

  constructor(
    private readonly limit: AuthFailureLimit,
    registry: Registry,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new FixedWindows(limit.windowMs, limit.maxAddresses ?? 50_000, now);
    this.answers = new Counter({
      name: 'auth_failures_total',
      help:
        'Bearer tokens refused, by answer and limit: 401 below the limits (limit none), 429 past the ' +
        "address's limit (address) or the replica's over all addresses (replica)",
      labelNames: ['answer', 'limit'],
      registers: [registry],
    });
    this.answers.inc({ answer: '401', limit: 'none' }, 0);
    for (const limit of ['address', 'replica']) this.answers.inc({ answer: '429', limit }, 0);
  }

  /** The limit the address is over now, and until when; null while it is under both. */
  throttled(key: string): Throttled | null {
    const now = this.now();
    const window = this.windows.current(key);
    if (window && window.count >= this.limit.failures) {
      return { scope: 'address', retryAfterSeconds: secondsUntil(window.endsAt, now) };
    }
    if (this.replica.count >= this.limit.replicaFailures && this.replica.endsAt > now) {
      return { scope: 'replica', retryAfterSeconds: secondsUntil(this.replica.endsAt, now) };
    }
    return null;
  }

  /** Counts one refused token from the address, against its window and the replica's. */
  failed(key: string): void {
    const now = this.now();
    this.windows.add(key);
    if (this.replica.endsAt > now) this.replica.count++;
    else this.replica = { count: 1, endsAt: now + this.limit.windowMs };
    this.answers.inc({ answer: '401', limit: 'none' });
  }

  /** Counts one 429 (a failure past a limit, not counted against the windows again). */
  refused(scope: AuthFailureScope): void {
    this.answers.inc({ answer: '429', limit: scope });
  }

  /** Addresses tracked now (bounded by maxAddresses). */
  get size(): number {
    return this.windows.size;
  }
}
