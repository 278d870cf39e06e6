import type { Gauge } from '@pix/observability';

/** A slot for one attempt to one endpoint; `release` gives it back (once, however often it is called). */
export interface Slot {
  release(): void;
}

/** What a wait for a slot ended with: a slot, the endpoint too busy to wait for, or the replica stopping. */
export type SlotOutcome = { slot: Slot } | { busy: true } | { stopped: true };

export interface EndpointLimits {
  /** Attempts in flight at once to one endpoint (URL origin): WEBHOOK_ENDPOINT_CONCURRENCY. */
  perEndpoint: number;
  /** Attempts in flight at once in all: WEBHOOK_MAX_IN_FLIGHT. */
  total: number;
}

/** How many attempts may wait in a replica for a busy endpoint, per slot it has. */
const WAITING_PER_SLOT = 8;

/**
 * How many webhook attempts this replica has in flight, per endpoint and in all, so that one slow
 * or failing merchant cannot take every connection and a burst cannot flood a merchant. Beyond the
 * limits a few attempts per endpoint (eight per slot) wait here for a slot; the rest are told the
 * endpoint is busy and wait outside the replica (an event taken in goes to WEBHOOK_ATTEMPTS, an
 * attempt message back to its consumer for a little later: attempts.ts), so a backlog never piles
 * up in its memory.
 *
 * Slots go to those waiting first, in the order they came: a freed slot passes straight to the
 * next in line, and `tryTake` (for a newcomer that will not wait) gets none while anyone waits. A
 * newcomer never overtakes an attempt that waited, so under a merchant's backlog its older webhooks
 * (a retry, an event held behind another) are not starved by the new ones.
 */
export class EndpointLimiter {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, ((slot: Slot | null) => void)[]>();
  private total = 0;
  private stopping = false;

  constructor(
    private readonly limits: EndpointLimits,
    /** webhook_in_flight{endpoint}. */
    private readonly gauge: Gauge<'endpoint'>,
  ) {}

  /** A slot now, if both limits allow one and nobody waits for this endpoint; null otherwise. */
  tryTake(origin: string): Slot | null {
    if (this.stopping || (this.waiting.get(origin)?.length ?? 0) > 0) return null;
    return this.grant(origin);
  }

  /** A slot, waiting in line for one while the endpoint has attempts in flight and the line is short. */
  async take(origin: string): Promise<SlotOutcome> {
    if (this.stopping) return { stopped: true };
    const slot = this.tryTake(origin);
    if (slot) return { slot };
    if (!this.mayWait(origin)) return { busy: true };
    const granted = await new Promise<Slot | null>((resolve) =>
      this.waiting.set(origin, [...(this.waiting.get(origin) ?? []), resolve]),
    );
    return granted ? { slot: granted } : { stopped: true };
  }

  /** Ends every wait with `stopped`; slots in use are released by their holders. */
  stop(): void {
    this.stopping = true;
    for (const queue of this.waiting.values()) for (const resolve of queue) resolve(null);
    this.waiting.clear();
  }

  private mayWait(origin: string): boolean {
    return (
      (this.inFlight.get(origin) ?? 0) > 0 &&
      this.total < this.limits.total &&
      (this.waiting.get(origin)?.length ?? 0) < this.limits.perEndpoint * WAITING_PER_SLOT
    );
  }

  private grant(origin: string): Slot | null {
    const busy = this.inFlight.get(origin) ?? 0;
    if (busy >= this.limits.perEndpoint || this.total >= this.limits.total) return null;
    this.inFlight.set(origin, busy + 1);
    this.total++;
    this.gauge.inc({ endpoint: origin });
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.release(origin);
      },
    };
  }

  private release(origin: string): void {
    const left = (this.inFlight.get(origin) ?? 1) - 1;
    this.total--;
    if (left > 0) {
      this.inFlight.set(origin, left);
      this.gauge.dec({ endpoint: origin });
    } else {
      // An idle endpoint leaves the metric, so its series do not pile up with every merchant ever seen.
      this.inFlight.delete(origin);
      this.gauge.remove({ endpoint: origin });
    }
    const queue = this.waiting.get(origin);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(origin);
    if (next) next(this.grant(origin));
  }
}

/** Endpoints are counted by URL origin (scheme, host and port). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
