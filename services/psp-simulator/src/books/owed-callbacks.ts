import type { Logger } from '@pix/observability';

/** A callback the receiver did not acknowledge is sent again after these delays, then every minute. */
const REDELIVERY_DELAYS_MS = [1000, 2000, 5000, 15_000, 30_000, 60_000];

/**
 * How the sandbox PSP keeps calling a receiver until it acknowledges, as a PSP does: a callback
 * that fails is sent again in the background, later and later, until it goes through or the
 * simulator stops (a restart resumes it from the books). Each callback is owed once, by its key:
 * a payer asking again while its callback is owed (a retried pay) tries it once more now, but
 * starts no second schedule, so a receiver that is away meets one redelivery per callback, not one
 * per retry.
 */
export class OwedCallbacks {
  /** The scheduled redelivery of each owed callback, by its key. */
  private readonly redeliveries = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  /** Completes now for the caller; when that fails, again in the background, and the caller hears of the failure. */
  async now(key: string, complete: () => Promise<void>): Promise<void> {
    try {
      await complete();
    } catch (err) {
      this.logger.warn({ err, key }, 'sandbox PSP callback failed; it will be sent again');
      this.later(key, complete, 0);
      throw err;
    }
  }

  /** Completes now; when that fails, again in the background (nobody waits for it). */
  async orLater(key: string, complete: () => Promise<void>): Promise<void> {
    await complete().catch((err: unknown) => {
      this.logger.warn({ err, key }, 'sandbox PSP callback failed; it will be sent again');
      this.later(key, complete, 0);
    });
  }

  /** Completes after `delayMs` in the background, and again until it goes through. */
  after(key: string, delayMs: number, complete: () => Promise<void>): void {
    if (!this.redeliveries.has(key)) this.schedule(key, delayMs, complete, 0);
  }

  /** Stops the background redeliveries (shutdown); a restart resumes them. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.redeliveries.values()) clearTimeout(timer);
    this.redeliveries.clear();
  }

  /** The next redelivery of a callback that failed; none when one is scheduled already. */
  private later(key: string, complete: () => Promise<void>, attempt: number): void {
    if (this.redeliveries.has(key)) return;
    this.schedule(
      key,
      REDELIVERY_DELAYS_MS[Math.min(attempt, REDELIVERY_DELAYS_MS.length - 1)] ?? 60_000,
      complete,
      attempt,
    );
  }

  private schedule(key: string, delayMs: number, complete: () => Promise<void>, attempt: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.redeliveries.delete(key);
      complete().catch((err: unknown) => {
        this.logger.warn({ err, key, attempt: attempt + 1 }, 'sandbox PSP callback failed again');
        this.later(key, complete, attempt + 1);
      });
    }, delayMs);
    timer.unref();
    this.redeliveries.set(key, timer);
  }
}
