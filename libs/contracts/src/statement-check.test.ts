import { previousDay } from './balance';
import { nextStatementCheck } from './statement-check';

describe('the nightly statement check’s time', () => {
  it('checks the day before at 03:00 in São Paulo (06:00 UTC), today’s if still ahead', () => {
    expect(nextStatementCheck(new Date('2026-11-29T05:59:59.000Z'))).toEqual({
      day: '2026-11-28',
      at: new Date('2026-11-29T06:00:00.000Z'),
    });
  });

  it('once today’s has passed, tomorrow’s, for today', () => {
    expect(nextStatementCheck(new Date('2026-11-29T06:00:00.000Z'))).toEqual({
      day: '2026-11-29',
      at: new Date('2026-11-30T06:00:00.000Z'),
    });
  });

  it('counts days in São Paulo: 01:00 UTC is still the evening before there', () => {
    // 22:00 of the 30th in São Paulo: the 30th is checked at 03:00 of the 1st.
    expect(nextStatementCheck(new Date('2026-12-01T01:00:00.000Z'))).toEqual({
      day: '2026-11-30',
      at: new Date('2026-12-01T06:00:00.000Z'),
    });
  });

  it('steps back over a month and a year', () => {
    expect(previousDay('2026-03-01')).toBe('2026-02-28');
    expect(previousDay('2027-01-01')).toBe('2026-12-31');
  });
});
