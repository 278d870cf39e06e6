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

/** How many attempts of each kind may wait in a replica for a busy endpoint, per slot it has. */
const WAITING_PER_SLOT = 8;

/**
 * Which line an attempt waits in: an event's first attempt (`first`: taken in, passed on while its
 * endpoint was busy, or held behind an earlier event of its payment) or a retry such a held event
 * waits for (sent `ahead`: attempts.ts); or one owed from before (`again`: a retry, one brought
 * forward, a replay, a lapsed claim made again).
 */
export type AttemptKind = 'first' | 'again';

/** What waits for an endpoint: its two lines, each in the order it came. */
interface Lines {
  first: ((slot: Slot | null) => void)[];
  again: ((slot: Slot | null) => void)[];
}

/** An endpoint's attempts in flight: in all, and how many of them are first attempts. */
interface InFlight {
  all: number;
  first: number;
}

/**
 * How many webhook attempts this replica has in flight, per endpoint and in all, so that one slow
 * or failing merchant cannot take every connection and a burst cannot flood a merchant. Beyond the
 * limits a few attempts per endpoint (eight per slot and kind) wait here for a slot; the rest are
 * told the endpoint is busy and wait outside the replica (an event taken in goes to
 * WEBHOOK_ATTEMPTS, an attempt message back to its consumer for a little later: attempts.ts), so a
 * backlog never piles up in its memory.
 *
 * A freed slot goes to an attempt that waited, never to a newcomer. Within an endpoint, first
 * attempts are served up to half its slots and owed ones the rest, each line in order, and either
 * takes every slot the other leaves: after an outage, the endpoint's backlog of retries neither
 * holds its new events back for the whole drain (at 50 payments a second they waited up to 21 s
 * behind it) nor is starved by them. A payment's own order is kept elsewhere (its later event is
 * held behind the earlier one: attempts.ts). Across endpoints the slot goes to the one with the
 * fewest attempts in flight. So while slow or failing endpoints hold every slot of the replica, an
 * endpoint with nothing in flight waits here and gets the next slot one of them frees. (Handed back
 * to its consumer instead, it raced their backlogs for each freed slot, and a lone webhook could
 * wait behind them for their whole backlog.)
 */
export class EndpointLimiter {
  private readonly inFlight = new Map<string, InFlight>();
  private readonly waiting = new Map<string, Lines>();
  private total = 0;
  private stopping = false;
  /** How many of an endpoint's slots its first attempts are served while owed ones wait too. */
  private readonly firstShare: number;

  constructor(
    private readonly limits: EndpointLimits,
    /** webhook_in_flight{endpoint}. */
    private readonly gauge: Gauge<'endpoint'>,
  ) {
    this.firstShare = Math.ceil(limits.perEndpoint / 2);
  }

  /**
   * A slot now for an event's first attempt, if both limits allow one and it would be served next
   * (no first attempt waits for this endpoint, and none owed does beyond the first attempts' share);
   * null otherwise.
   */
  tryTake(origin: string): Slot | null {
    return this.stopping || !this.nextInLine(origin, 'first') ? null : this.grant(origin, 'first');
  }

  /** A slot, waiting in line for one when one will come free for this endpoint (`mayWait`). */
  async take(origin: string, kind: AttemptKind): Promise<SlotOutcome> {
    if (this.stopping) return { stopped: true };
    const slot = this.nextInLine(origin, kind) ? this.grant(origin, kind) : null;
    if (slot) return { slot };
    if (!this.mayWait(origin, kind)) return { busy: true };
    const granted = await new Promise<Slot | null>((resolve) => {
      let lines = this.waiting.get(origin);
      if (!lines) this.waiting.set(origin, (lines = { first: [], again: [] }));
      lines[kind].push(resolve);
    });
    return granted ? { slot: granted } : { stopped: true };
  }

  /** Ends every wait with `stopped`; slots in use are released by their holders. */
  stop(): void {
    this.stopping = true;
    for (const lines of this.waiting.values()) for (const resolve of [...lines.first, ...lines.again]) resolve(null);
    this.waiting.clear();
  }

  /** Whether a newcomer of `kind` would be served next: nobody waits in its line, and its line's turn is next. */
  private nextInLine(origin: string, kind: AttemptKind): boolean {
    return (this.waiting.get(origin)?.[kind].length ?? 0) === 0 && this.served(origin, kind) === kind;
  }

  /**
   * Which of the endpoint's lines its next slot goes to, `newcomer` standing at the end of its
   * line: first attempts while they hold less than their share or nothing owed waits, else the
   * owed ones, else whichever waits.
   */
  private served(origin: string, newcomer?: AttemptKind): AttemptKind | undefined {
    const lines = this.waiting.get(origin);
    const first = (lines?.first.length ?? 0) + (newcomer === 'first' ? 1 : 0);
    const again = (lines?.again.length ?? 0) + (newcomer === 'again' ? 1 : 0);
    if (first > 0 && (again === 0 || (this.inFlight.get(origin)?.first ?? 0) < this.firstShare)) return 'first';
    return again > 0 ? 'again' : undefined;
  }

  /**
   * Whether an attempt may wait here: its line is short, and a slot will come free for it. An
   * endpoint with attempts in flight waits for one of its own to end, unless every slot is taken
   * (it is being served, and its attempts go back to the consumer); one with none waits only while
   * every slot is taken, for the next slot any endpoint frees (`nextServed`).
   */
  private mayWait(origin: string, kind: AttemptKind): boolean {
    const lineShort = (this.waiting.get(origin)?.[kind].length ?? 0) < this.limits.perEndpoint * WAITING_PER_SLOT;
    const full = this.total >= this.limits.total;
    return lineShort && ((this.inFlight.get(origin)?.all ?? 0) > 0 ? !full : full);
  }

  /** Of the endpoints with attempts waiting and room for one more, the one with the fewest in flight (the first in ties). */
  private nextServed(): string | undefined {
    let chosen: string | undefined;
    let fewest = this.limits.perEndpoint;
    for (const origin of this.waiting.keys()) {
      const busy = this.inFlight.get(origin)?.all ?? 0;
      if (busy < fewest) [chosen, fewest] = [origin, busy];
    }
    return chosen;
  }

  private grant(origin: string, kind: AttemptKind): Slot | null {
    const busy = this.inFlight.get(origin) ?? { all: 0, first: 0 };
    if (busy.all >= this.limits.perEndpoint || this.total >= this.limits.total) return null;
    busy.all++;
    if (kind === 'first') busy.first++;
    this.inFlight.set(origin, busy);
    this.total++;
    this.gauge.inc({ endpoint: origin });
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.release(origin, kind);
      },
    };
  }

  private release(origin: string, kind: AttemptKind): void {
    const busy = this.inFlight.get(origin)!;
    busy.all--;
    if (kind === 'first') busy.first--;
    this.total--;
    if (busy.all > 0) {
      this.gauge.dec({ endpoint: origin });
    } else {
      // An idle endpoint leaves the metric, so its series do not pile up with every merchant ever seen.
      this.inFlight.delete(origin);
      this.gauge.remove({ endpoint: origin });
    }
    const endpoint = this.nextServed();
    if (endpoint === undefined) return;
    const lines = this.waiting.get(endpoint)!;
    const line = this.served(endpoint)!;
    const next = lines[line].shift()!;
    if (lines.first.length + lines.again.length === 0) this.waiting.delete(endpoint);
    next(this.grant(endpoint, line));
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
