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
 * A freed slot goes to an attempt that waited, never to a newcomer: within an endpoint to the
 * first in line, so under a merchant's backlog its older webhooks (a retry, an event held behind
 * another) are not starved by the new ones; across endpoints to the one with the fewest attempts
 * in flight. So while slow or failing endpoints hold every slot of the replica, an endpoint with
 * nothing in flight waits here and gets the next slot one of them frees. (Handed back to its
 * consumer instead, it raced their backlogs for each freed slot, and a lone webhook could wait
 * behind them for their whole backlog.)
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

  /** A slot, waiting in line for one when one will come free for this endpoint (`mayWait`). */
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

  /**
   * Whether an attempt may wait here: its line is short, and a slot will come free for it. An
   * endpoint with attempts in flight waits for one of its own to end, unless every slot is taken
   * (it is being served, and its attempts go back to the consumer); one with none waits only while
   * every slot is taken, for the next slot any endpoint frees (`nextServed`).
   */
  private mayWait(origin: string): boolean {
    const lineShort = (this.waiting.get(origin)?.length ?? 0) < this.limits.perEndpoint * WAITING_PER_SLOT;
    const full = this.total >= this.limits.total;
    return lineShort && ((this.inFlight.get(origin) ?? 0) > 0 ? !full : full);
  }

  /** Of the endpoints with attempts waiting and room for one more, the one with the fewest in flight (the first in ties). */
  private nextServed(): string | undefined {
    let chosen: string | undefined;
    let fewest = this.limits.perEndpoint;
    for (const origin of this.waiting.keys()) {
      const busy = this.inFlight.get(origin) ?? 0;
      if (busy < fewest) [chosen, fewest] = [origin, busy];
    }
    return chosen;
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
    const served = this.nextServed();
    if (served === undefined) return;
    const queue = this.waiting.get(served)!;
    const next = queue.shift()!;
    if (queue.length === 0) this.waiting.delete(served);
    next(this.grant(served));
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
