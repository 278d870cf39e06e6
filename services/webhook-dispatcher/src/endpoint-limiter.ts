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

/**
 * How many webhook attempts this replica has in flight, per endpoint and in all, so that one slow
 * or failing merchant cannot take every connection and a burst cannot flood a merchant. Beyond the
 * limits only a few callers per endpoint (as many as its slots) wait here for a slot, woken one by
 * one as slots free; the rest are told the endpoint is busy, and their attempts wait elsewhere (a
 * scheduled message), so a backlog never piles up in memory or unacked on a consumer.
 */
export class EndpointLimiter {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private total = 0;
  private stopping = false;

  constructor(
    private readonly limits: EndpointLimits,
    /** webhook_in_flight{endpoint}. */
    private readonly gauge: Gauge<'endpoint'>,
  ) {}

  /** A slot now, if both limits allow one; null otherwise (nothing waits). */
  tryTake(origin: string): Slot | null {
    if (this.stopping) return null;
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

  /**
   * A slot, waiting for one while the endpoint has attempts in flight and few others wait for it
   * (the consumer keeps the waiting caller's message alive meanwhile).
   */
  async take(origin: string): Promise<SlotOutcome> {
    for (;;) {
      if (this.stopping) return { stopped: true };
      const slot = this.tryTake(origin);
      if (slot) return { slot };
      if (!this.mayWait(origin)) return { busy: true };
      await new Promise<void>((resolve) => this.waiting.set(origin, [...(this.waiting.get(origin) ?? []), resolve]));
    }
  }

  /** Wakes every waiter, who gets `stopped`; slots in use are released by their holders. */
  stop(): void {
    this.stopping = true;
    for (const queue of this.waiting.values()) for (const wake of queue) wake();
    this.waiting.clear();
  }

  /**
   * Whether a caller may wait for a slot of its busy endpoint: only a few (as many as the endpoint's
   * slots), so the next ones go the moment a slot frees while a backlog still cannot pile up here.
   */
  private mayWait(origin: string): boolean {
    return (
      (this.inFlight.get(origin) ?? 0) > 0 &&
      this.total < this.limits.total &&
      (this.waiting.get(origin)?.length ?? 0) < this.limits.perEndpoint
    );
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
    next?.();
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
