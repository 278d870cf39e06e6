/**
 * Removes published messages from their payments' outboxes, many payments in one command. A
 * removal is bookkeeping (until it happens the relay may publish a message again, which JetStream
 * drops by its id), so it need not happen before the request that wrote it is answered: removals
 * wait a while (a quarter of a second, far inside the relay's 5 s) for others to join them, and
 * under load one command serves many writes (at 50 writes a second, about twelve: each command
 * costs FerretDB and PostgreSQL about as much again as the payments it empties). Only what was
 * published is removed (by message id), so a message a later write added stays; and a later write
 * of the same payment by this process leaves out what this process published (`published`), so it
 * is neither published again nor kept.
 */
export class OutboxClearer {
  /** Published message ids per payment, not yet removed: waiting, or in the removal under way. */
  private readonly known = new Map<string, Set<string>>();
  private pending = new Map<string, string[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    /** Removes each payment's published messages (by payment id, the ids of its messages). */
    private readonly remove: (published: [paymentId: string, msgIds: string[]][]) => Promise<unknown>,
    /** A removal that failed: its messages stay in the outbox, and the relay publishes them again. */
    private readonly onError: (err: unknown) => void,
    private readonly lingerMs = 250,
  ) {}

  /** Asks for the published messages `msgIds` to leave payment `paymentId`'s outbox. */
  clear(paymentId: string, msgIds: string[]): void {
    this.pending.set(paymentId, [...(this.pending.get(paymentId) ?? []), ...msgIds]);
    const known = this.known.get(paymentId) ?? new Set<string>();
    for (const id of msgIds) known.add(id);
    this.known.set(paymentId, known);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.run();
    }, this.lingerMs);
  }

  /** Whether this process published message `msgId` of the payment and has not removed it yet. */
  published(paymentId: string, msgId: string): boolean {
    return this.known.get(paymentId)?.has(msgId) ?? false;
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
    this.running = this.remove([...batch])
      .then(() => undefined, this.onError)
      .finally(() => {
        for (const [paymentId, ids] of batch) this.forget(paymentId, ids);
        this.running = undefined;
        if (this.pending.size > 0) void this.run();
      });
    await this.running;
  }

  private forget(paymentId: string, ids: string[]): void {
    const known = this.known.get(paymentId);
    if (!known) return;
    for (const id of ids) known.delete(id);
    if (known.size === 0) this.known.delete(paymentId);
  }
}
