/**
 * Removes published messages from their payments' outboxes, many payments in one command. A
 * removal is bookkeeping (until it happens the relay may publish a message again, which JetStream
 * drops by its id), so it need not happen before the request that wrote it is answered: removals
 * wait a few milliseconds for others to join them, and under load one command serves many writes.
 * Only what was published is removed (by message id), so a message a later write added stays.
 */
export class OutboxClearer {
  private pending = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly remove: (paymentIds: string[], msgIds: string[]) => Promise<unknown>,
    /** A removal that failed: its messages stay in the outbox, and the relay publishes them again. */
    private readonly onError: (err: unknown) => void,
    private readonly lingerMs = 10,
  ) {}

  /** Asks for the published messages `msgIds` to leave payment `paymentId`'s outbox. */
  clear(paymentId: string, msgIds: string[]): void {
    this.pending.set(paymentId, [...(this.pending.get(paymentId) ?? []), ...msgIds]);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, this.lingerMs);
  }

  /** Removes everything asked for so far (shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.running || this.pending.size > 0) await (this.running ?? this.run());
  }

  private async run(): Promise<void> {
    // One removal at a time: what is asked for meanwhile goes in the next one.
    if (this.running) return;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.running = this.remove([...batch.keys()], [...batch.values()].flat())
      .then(() => undefined, this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.pending.size > 0) void this.run();
      });
    await this.running;
  }
}
