import { dayStart, isDay, isMonth, monthDays, nextDay, statementDay } from './balance';

describe("a statement's days", () => {
  it('are real calendar days written AAAA-MM-DD', () => {
    expect(['2026-11-28', '2024-02-29'].map(isDay)).toEqual([true, true]);
    expect(
      ['2026-02-30', '2026-13-01', '2025-02-29', '28/11/2026', '2026-1-01', '', null, 20261128].map(isDay),
    ).toEqual(Array(8).fill(false));
    expect(['2026-11', '2026-13', '2026-1', '2026-11-01'].map(isMonth)).toEqual([true, false, false, false]);
  });

  it("are São Paulo's: a day starts at 03:00 UTC, and an instant falls on its local day", () => {
    expect(dayStart('2026-11-28').toISOString()).toBe('2026-11-28T03:00:00.000Z');
    expect(statementDay(new Date('2026-11-29T02:59:59.999Z'))).toBe('2026-11-28');
    expect(statementDay(new Date('2026-11-29T03:00:00.000Z'))).toBe('2026-11-29');
    // Before 2019 Brazil kept summer time: the zone database says when a day began then.
    expect(dayStart('2018-12-01').toISOString()).toBe('2018-12-01T02:00:00.000Z');
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
    expect(monthDays('2024-02')).toEqual({ from: '2024-02-01', to: '2024-02-29' });
  });
});
