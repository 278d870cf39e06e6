import { parseDuration } from '@pix/config';

/** Parses WEBHOOK_RETRY_SCHEDULE ("0s,5s,5m,...") into delays in milliseconds. */
export function parseSchedule(text: string): number[] {
  const delays = text.split(',').map((part) => parseDuration(part));
  if (delays.length === 0 || delays.some((delay) => delay === null)) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE is not a list of durations: ${text}`);
  }
  return delays as number[];
}
