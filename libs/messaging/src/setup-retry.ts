import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@pix/observability';

/**
 * How long a starting service keeps asking for its setup: JetStream's streams, consumers and buckets
 * (a cluster that is still forming, or electing a meta leader after losing a member, refuses for a
 * few seconds: "no suitable peers for placement", timeouts), the database's indexes. Past this the
 * service exits and its supervisor (Kubernetes, the devstack) starts it again.
 */
const SETUP_PATIENCE_MS = 120_000;
const FIRST_DELAY_MS = 250;
const LAST_DELAY_MS = 5000;

/** Runs an idempotent setup step until it succeeds, backing off, for at most `patienceMs`. */
export async function retrySetup<T>(
  what: string,
  step: () => Promise<T>,
  logger?: Logger,
  patienceMs = SETUP_PATIENCE_MS,
): Promise<T> {
  const deadline = Date.now() + patienceMs;
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, LAST_DELAY_MS)) {
    try {
      return await step();
    } catch (err) {
      if (Date.now() + delay > deadline) throw err;
      logger?.warn({ err, what, retryInMs: delay }, 'setup refused, retrying');
      await sleep(delay);
    }
  }
}
