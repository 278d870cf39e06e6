import { parseDuration } from '@pix/config';

/** Parses WEBHOOK_RETRY_SCHEDULE ("0s,5s,5m,...") into delays in milliseconds. */
export function parseSchedule(text: string): number[] {
  const delays = text.split(',').map((part) => parseDuration(part));
  if (delays.length === 0 || delays.some((delay) => delay === null)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE is not a list of durations: ${text}`);
  }
  return delays as number[];
}

/** Share of a delay by which it may move either way, so retries of many events do not land at once. */
export const JITTER = 0.1;

/** The delay moved by up to ±JITTER of itself; `random` is in [0, 1). */
export function withJitter(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (1 - JITTER + 2 * JITTER * random()));
}
