import type { Logger } from '@pix/observability';

/** The first wait before publishing again, doubling up to the last while JetStream stays away. */
const FIRST_WAIT_MS = 250;
const LAST_WAIT_MS = 2000;

/**
 * Outboxes whose publish failed right after their write (JetStream away: a stream electing a new
 * leader after losing one, NATS restarting), published again by this process as soon as JetStream
 * takes them, oldest first: one is tried after 250 ms (doubling to 2 s while it fails), and once one
 * goes through the rest follow at once. A later write's own publish going through says JetStream is
 * back too (`back`): what waits goes then, not at the next try, which may be 2 s away, and a try
 * sent while a stream still elects its leader waits out the publish's 2 s timeout besides. So what
 * a write owes reaches its stream within moments of the stream's return, not after the relay's next
 * look at outboxes older than a few seconds; the relay stays the net for a writer that died.
 */
export class PublishRetry<T> {
  private readonly waiting = new Set<T>();
  private timer: NodeJS.Timeout | undefined;
  private waitMs = FIRST_WAIT_MS;
  /** The drain under way: one at a time, so what waits goes oldest first, and once. */
  private draining: Promise<void> | undefined;

  constructor(
    /** Publishes one outbox; false when it failed (it then comes back here: `later`). */
    private readonly publish: (doc: T) => Promise<boolean>,
    private readonly logger: Logger,
  ) {}

  /**
   * An outbox to publish again. A later write of the same payment holds its messages too (they are
   * not known to be published), so they go again first; JetStream keeps one of each.
   */
  later(doc: T, err: unknown): void {
    // During a drain: the outbox it tries, failing again (it keeps its place), or another write's
    // (it joins the end): the drain schedules the next try itself, after doubling the wait.
    if (this.draining) {
      this.waiting.add(doc);
      return;
    }
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

  /** A publish of another write went through: JetStream is back, so what waits goes now. */
  back(): void {
    if (this.waiting.size === 0 || this.draining) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    void this.drain();
  }

  /** Tries what waits once more, now (shutdown); what still fails stays for the relay. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.draining;
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

  private drain(): Promise<void> {
    // Started a tick later, so that `draining` is set before the first publish can fail back to `later`.
    this.draining ??= Promise.resolve()
      .then(() => this.publishWaiting())
      .finally(() => {
        this.draining = undefined;
        // One that failed as the drain ended was not scheduled by it.
        if (this.waiting.size > 0) this.schedule();
      });
    return this.draining;
  }

  /** Publishes what waits, oldest first, up to the first that fails: the next try is then scheduled. */
  private async publishWaiting(): Promise<void> {
    // A write that fails meanwhile joins the end, and goes in this same pass.
    for (const doc of this.waiting) {
      if (!(await this.publish(doc))) {
        this.waitMs = Math.min(this.waitMs * 2, LAST_WAIT_MS);
        this.schedule();
        return;
      }
      this.waiting.delete(doc);
    }
    this.waitMs = FIRST_WAIT_MS;
    this.logger.info('outboxes published again: JetStream is back');
  }
}
