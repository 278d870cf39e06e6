import type { WebhookAttemptOutcome } from '@pix/contracts';
import type { Conclusion } from './delivery-log';
import { withJitter } from './schedule';

/**
 * What follows an attempt that ended with `outcome`, decided in one place for the attempt just made
 * and for a redo that finds its result recorded: delivered on a success; dead at once when the
 * target was refused (no later attempt would be let through); another attempt at `retryAt` after a
 * failure while the schedule has one, dead (exhausted) when it has none.
 */
export function decide(outcome: WebhookAttemptOutcome, retryAt: Date | null): Conclusion {
  if (outcome === 'success') return { next: 'delivered' };
  if (outcome === 'refused') return { next: 'dead', reason: 'refused' };
  return retryAt ? { next: 'retry', at: retryAt } : { next: 'dead', reason: 'exhausted' };
}

/**
 * When the attempt after attempt `attempt` (1-based) is due by WEBHOOK_RETRY_SCHEDULE, whose n-th
 * delay leads to attempt n + 1, moved by the jitter; null when the schedule has no more.
 */
export function retryAt(schedule: number[], attempt: number, now: number, random?: () => number): Date | null {
  const delay = schedule[attempt];
  return delay === undefined ? null : new Date(now + withJitter(delay, random));
}
