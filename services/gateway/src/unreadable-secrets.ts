import type { LRUCache } from 'lru-cache';
import { Counter, type Logger, type Registry } from '@pix/observability';
import { boundedCache } from './bounded-cache';
import type { UnreadableSecret } from './storage';

/** A store is logged again after this long while its secrets still do not open. */
const RELOG_AFTER_MS = 60 * 60_000;
/** Stores remembered as logged at once (the least recently seen forgotten first). */
const MAX_REMEMBERED = 10_000;

/**
 * Makes a webhook secret that does not open (sealed under a key SECRETS_KEYS no longer holds) seen
 * rather than silent: each read of such a store's secrets for signing is counted, and the store is
 * logged once an hour with the keys it names and whether anything still signs its deliveries.
 */
export class UnreadableSecretsReport {
  private readonly logged: LRUCache<string, true>;
  private readonly reads: Counter<'signing'>;

  constructor(
    private readonly logger: Logger,
    registry: Registry,
  ) {
    this.logged = boundedCache(MAX_REMEMBERED, { ttl: RELOG_AFTER_MS });
    this.reads = new Counter({
      name: 'webhook_secrets_unreadable_total',
      help:
        "Reads of a store's webhook secrets for signing that found one that does not open (a retired key), " +
        'by what still signs: partial (other secrets do), none (its deliveries wait unsent)',
      labelNames: ['signing'],
      registers: [registry],
    });
    for (const signing of ['partial', 'none']) this.reads.inc({ signing }, 0);
  }

  /** Counts one read that found `unreadable` beside `readable` open secrets; logs the store once an hour. */
  found(storeId: string, unreadable: readonly UnreadableSecret[], readable: number): void {
    const signing = readable > 0 ? 'partial' : 'none';
    this.reads.inc({ signing });
    if (this.logged.has(storeId)) return;
    this.logged.set(storeId, true);
    this.logger.error(
      { storeId, kids: [...new Set(unreadable.map((u) => u.kid))], signing },
      readable > 0
        ? 'a webhook secret of the store does not open (a retired key): deliveries are signed without it'
        : 'no webhook secret of the store opens (a retired key): its deliveries wait until admin store rotate-secret',
    );
  }
}
