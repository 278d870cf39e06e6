import { PixApiError, PixConnectionError } from './errors.js';

export interface RetryOptions {
  /** Tries after the first one (default 3). */
  retries: number;
  /** The first wait; each next one doubles, up to maxDelayMs, with ±20 % jitter (defaults 250 ms, 4 s). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 250, maxDelayMs: 4_000 };

/** Worth another try: no answer at all, or the server failed (5xx). A 4xx would fail the same again. */
export function isRetryable(err: unknown): boolean {
  return err instanceof PixConnectionError || (err instanceof PixApiError && err.statusCode >= 500);
}

/** Runs `attempt` until it succeeds, fails for good, or the retries are spent; waits with backoff in between. */
export async function withRetries<T>(options: RetryOptions, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (tries >= options.retries || !isRetryable(err)) throw err;
      const delay = Math.min(options.baseDelayMs * 2 ** tries, options.maxDelayMs);
      await new Promise((resolve) => setTimeout(resolve, delay * (0.8 + Math.random() * 0.4)));
    }
  }
}
