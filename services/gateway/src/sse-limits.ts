import { Counter, Gauge, type Registry } from '@pix/observability';

/** The live streams the gateway serves: the hosted payment pages' and the dashboards'. */
export type StreamKind = 'payment_page' | 'dashboard';

export interface StreamLimits {
  /** Streams one replica keeps open at once, of both kinds. */
  perReplica: number;
  /** Streams of one store (its customers' pages and its own dashboards) on one replica. */
  perStore: number;
}

/** Why a stream was refused: the replica is full (503, try another replica) or the store is (429). */
export type StreamRefusal = 'replica_full' | 'store_full';

/**
 * Caps the Server-Sent Event streams of this replica. Each open stream holds a socket and a feed
 * listener for as long as the browser keeps it, so without a cap a store (or anyone holding
 * payment links) could exhaust a replica's sockets for every other store. A stream takes a slot
 * before it is answered and gives it back when it closes.
 */
export class StreamLimiter {
  private total = 0;
  private readonly perStore = new Map<string, number>();
  private readonly open: Gauge<'kind'>;
  private readonly refused: Counter<'kind' | 'reason'>;

  constructor(
    private readonly limits: StreamLimits,
    registry: Registry,
  ) {
    this.open = new Gauge({
      name: 'sse_connections',
      help: 'Server-Sent Event streams open on this replica, by kind (payment_page, dashboard)',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.refused = new Counter({
      name: 'sse_connections_refused_total',
      help: 'Server-Sent Event streams refused, by kind and reason (replica_full, store_full)',
      labelNames: ['kind', 'reason'],
      registers: [registry],
    });
    for (const kind of ['payment_page', 'dashboard'] as const) this.open.set({ kind }, 0);
  }

  /**
   * Takes a slot for a stream of the store; the returned release gives it back (once, however
   * often it is called). A refusal says which limit is reached.
   */
  acquire(kind: StreamKind, storeId: string): { ok: true; release: () => void } | { ok: false; reason: StreamRefusal } {
    const ofStore = this.perStore.get(storeId) ?? 0;
    const reason: StreamRefusal | null =
      this.total >= this.limits.perReplica ? 'replica_full' : ofStore >= this.limits.perStore ? 'store_full' : null;
    if (reason) {
      this.refused.inc({ kind, reason });
      return { ok: false, reason };
    }
    this.total += 1;
    this.perStore.set(storeId, ofStore + 1);
    this.open.inc({ kind });
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.total -= 1;
        const left = (this.perStore.get(storeId) ?? 1) - 1;
        if (left === 0) this.perStore.delete(storeId);
        else this.perStore.set(storeId, left);
        this.open.dec({ kind });
      },
    };
  }

  /** Streams open now: all of them, or one store's. */
  count(storeId?: string): number {
    return storeId === undefined ? this.total : (this.perStore.get(storeId) ?? 0);
  }
}

/** The status and the seconds a browser should wait, for a refused stream. */
export function refusalAnswer(reason: StreamRefusal): { status: number; retryAfterSeconds: number } {
  return reason === 'replica_full' ? { status: 503, retryAfterSeconds: 5 } : { status: 429, retryAfterSeconds: 10 };
}
