import { JITTER, parseSchedule, withJitter } from './schedule';

describe('retry schedule', () => {
  it('parses the default schedule', () => {
    expect(parseSchedule('0s,5s,5m,30m,2h,5h,10h,10h')).toEqual([
      0, 5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('refuses anything that is not a list of durations', () => {
    expect(() => parseSchedule('0s,soon')).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(() => parseSchedule('')).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });

  it('moves a delay by at most the jitter either way, and leaves 0 at 0', () => {
    expect(withJitter(10_000, () => 0)).toBe(10_000 * (1 - JITTER));
    expect(withJitter(10_000, () => 0.999_999)).toBe(Math.round(10_000 * (1 + JITTER)));
    expect(withJitter(10_000, () => 0.5)).toBe(10_000);
    expect(withJitter(0, () => 0.9)).toBe(0);
  });
});
