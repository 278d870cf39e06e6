/**
 * Polls replicas' `/readyz` as a Kubernetes readiness probe would, to catch a check that fails
 * under load while what it checks works: every answer other than 200 is kept with when and what it
 * said, and each probe not answered in time is counted apart (a busy event loop, not a claim).
 * A replica is left out while it is down on purpose (killed, until its restart is ready).
 */
export interface NotReady {
  replica: string;
  at: number;
  status: number;
  body: string;
}

export class ReadinessWatch {
  readonly notReady: NotReady[] = [];
  unanswered = 0;
  answered = 0;
  private readonly down = new Set<string>();
  private readonly inFlight = new Set<string>();
  private watching = false;
  private timer: NodeJS.Timeout | undefined;

  /** `replicas`: a name for each replica, and its ops URL. */
  constructor(
    private readonly replicas: Record<string, string>,
    private readonly everyMs = 500,
    private readonly timeoutMs = 2000,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      if (this.watching) for (const replica of Object.keys(this.replicas)) void this.probe(replica);
    }, this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Probes are sent only while watching: off across faults that take what replicas check away. */
  watch(on: boolean): void {
    this.watching = on;
  }

  /** The replica is down on purpose, or (false) back and ready. */
  setDown(replica: string, down: boolean): void {
    if (down) this.down.add(replica);
    else this.down.delete(replica);
  }

  private async probe(replica: string): Promise<void> {
    if (this.down.has(replica) || this.inFlight.has(replica)) return;
    this.inFlight.add(replica);
    const at = Date.now();
    try {
      const res = await fetch(`${this.replicas[replica]}/readyz`, { signal: AbortSignal.timeout(this.timeoutMs) });
      const body = await res.text();
      // A kill during the probe is not a claim of the replica's.
      if (this.down.has(replica) || !this.watching) return;
      this.answered++;
      if (res.status !== 200) this.notReady.push({ replica, at, status: res.status, body });
    } catch {
      if (!this.down.has(replica) && this.watching) this.unanswered++;
    } finally {
      this.inFlight.delete(replica);
    }
  }
}
