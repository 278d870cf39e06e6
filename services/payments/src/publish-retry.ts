import type { Logger } from '@pix/observability';

/** The first wait before publishing again, doubling up to the last while JetStream stays away. */
const FIRST_WAIT_MS = 250;
const LAST_WAIT_MS = 2000;

/**
 * Outboxes whose publish failed right after their write (JetStream away: a stream electing a new
 * leader after losing one, NATS restarting), published again by this process as soon as JetStream
 * takes them, oldest first: one is tried after 250 ms (doubling to 2 s while it fails), and once one
 * goes through the rest follow at once. So what a write owes reaches its stream within moments of
 * the stream's return, not after the relay's next look at outboxes older than a few seconds; the
 * relay stays the net for a writer that died.
 */
export class PublishRetry<T> {
  private readonly waiting = new Set<T>();
  private timer: NodeJS.Timeout | undefined;
  private waitMs = FIRST_WAIT_MS;

  constructor(
    /** Publishes one outbox; false when it failed (it is then waiting here again). */
    private readonly publish: (doc: T) => Promise<boolean>,
    private readonly logger: Logger,
  ) {}

  /**
   * An outbox to publish again. A later write of the same payment holds its messages too (they are
   * not known to be published), so they go again first; JetStream keeps one of each.
   */
  later(doc: T, err: unknown): void {
    if (this.waiting.size === 0) {
      this.logger.warn({ err }, 'publishing after a write failed; publishing again while JetStream is away');
    }
    this.waiting.add(doc);
    this.schedule();
  }

  /** How many outboxes wait to be published again. */
  get size(): number {
    return this.waiting.size;
  }

  /** Tries what waits once more, now (shutdown); what still fails stays for the relay. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting.size > 0) await this.drain();
  }

  private schedule(): void {
    // Unref'd: a process stopping leaves what still waits to the relay.
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.waitMs);
    this.timer.unref();
  }

  private async drain(): Promise<void> {
    for (const doc of this.waiting) {
      this.waiting.delete(doc);
      if (!(await this.publish(doc))) {
        this.waitMs = Math.min(this.waitMs * 2, LAST_WAIT_MS);
        this.schedule();
        return;
      }
    }
    this.waitMs = FIRST_WAIT_MS;
    this.logger.info('outboxes published again: JetStream is back');
  }
}
