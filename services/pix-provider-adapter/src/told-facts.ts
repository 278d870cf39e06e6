/**
 * The facts this process stored on the PIX stream lately, by message id: a fact told again within
 * `keepMs` (a reconciliation listing a Pix its callback told, the next window overlapping the last)
 * is known to be there and is not published again. Only what JetStream acknowledged is kept, and for
 * far less than the stream's two-hour duplicate window, so skipping one never loses a fact; another
 * replica, which has not seen it, publishes a duplicate that JetStream drops. Bounded by time: ids
 * leave in the order they came, once older than `keepMs`.
 */
export class ToldFacts {
  private readonly toldAt = new Map<string, number>();

  constructor(private readonly keepMs: number) {}

  has(msgId: string, now = Date.now()): boolean {
    const at = this.toldAt.get(msgId);
    return at !== undefined && now - at < this.keepMs;
  }

  add(msgId: string, now = Date.now()): void {
    this.toldAt.delete(msgId);
    this.toldAt.set(msgId, now);
    for (const [id, at] of this.toldAt) {
      if (now - at < this.keepMs) break;
      this.toldAt.delete(id);
    }
  }
}
