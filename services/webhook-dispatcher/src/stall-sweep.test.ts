import { minutesBetween, recheckDelay } from './stall-sweep';

describe('minutesBetween', () => {
  it('lists the minutes after the first up to the last, across an hour and a day', () => {
    expect(minutesBetween('2026-11-22T23:58', '2026-11-23T00:01', 10)).toEqual([
      '2026-11-22T23:59',
      '2026-11-23T00:00',
      '2026-11-23T00:01',
    ]);
  });

  it('is empty when nothing has passed since, and stops at the most asked for', () => {
    expect(minutesBetween('2026-11-23T00:01', '2026-11-23T00:01', 10)).toEqual([]);
    expect(minutesBetween('2026-11-23T00:00', '2026-11-23T05:00', 2)).toEqual(['2026-11-23T00:01', '2026-11-23T00:02']);
  });
});

describe('recheckDelay', () => {
  it('doubles with each check that found the delivery not moved on, up to six hours', () => {
    const twoMinutes = 2 * 60_000;
    expect([0, 1, 2].map((checks) => recheckDelay(twoMinutes, checks))).toEqual([240_000, 480_000, 960_000]);
    expect(recheckDelay(twoMinutes, 50)).toBe(6 * 60 * 60 * 1000);
  });
});
