import type { Logger } from '@pix/observability';

/** A callback the receiver did not acknowledge is sent again after these delays, then every minute. */
const REDELIVERY_DELAYS_MS = [1000, 2000, 5000, 15_000, 30_000, 60_000];

/**
 * How the sandbox PSP keeps calling a receiver until it acknowledges, as a PSP does: a callback
 * that fails is sent again in the background, later and later, until it goes through or the
 * adapter stops (a restart resumes it from the books).
 */
export class OwedCallbacks {
  private readonly redeliveries = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly logger: Logger) {}

  /** Completes now for the caller; when that fails, again in the background, and the caller hears of the failure. */
  async now(complete: () => Promise<void>): Promise<void> {
    try {
      await complete();
    } catch (err) {
      this.logger.warn({ err }, 'sandbox PSP callback failed; it will be sent again');
      this.later(complete, 0);
      throw err;
    }
  }

  /** Completes now; when that fails, again in the background (nobody waits for it). */
  async orLater(complete: () => Promise<void>): Promise<void> {
    await complete().catch((err: unknown) => {
      this.logger.warn({ err }, 'sandbox PSP callback failed; it will be sent again');
      this.later(complete, 0);
    });
  }

  /** Completes after `delayMs` in the background, and again until it goes through. */
  after(delayMs: number, complete: () => Promise<void>): void {
    this.schedule(delayMs, complete, 0);
  }

  /** Stops the background redeliveries (shutdown); a restart resumes them. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.redeliveries) clearTimeout(timer);
    this.redeliveries.clear();
  }

  private later(complete: () => Promise<void>, attempt: number): void {
    this.schedule(
      REDELIVERY_DELAYS_MS[Math.min(attempt, REDELIVERY_DELAYS_MS.length - 1)] ?? 60_000,
      complete,
      attempt,
    );
  }

  private schedule(delayMs: number, complete: () => Promise<void>, attempt: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.redeliveries.delete(timer);
      complete().catch((err: unknown) => {
        this.logger.warn({ err, attempt: attempt + 1 }, 'sandbox PSP callback failed again');
        this.later(complete, attempt + 1);
      });
    }, delayMs);
    timer.unref();
    this.redeliveries.add(timer);
  }
}
