import { bucketOf, bucketsBetween, UTC_DAY, UTC_MINUTE } from './time-buckets';

describe('time buckets', () => {
  it('names an instant by its UTC day or minute', () => {
    expect(bucketOf(UTC_DAY, new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(bucketOf(UTC_MINUTE, new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01T23:59');
  });

  it('lists the buckets after the first up to the last, across an hour, a day and a month', () => {
    expect(bucketsBetween(UTC_MINUTE, '2026-11-22T23:58', '2026-11-23T00:01')).toEqual([
      '2026-11-22T23:59',
      '2026-11-23T00:00',
      '2026-11-23T00:01',
    ]);
    expect(bucketsBetween(UTC_DAY, '2026-02-27', '2026-03-02')).toEqual(['2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('is empty when nothing has passed since, and stops at the most asked for', () => {
    expect(bucketsBetween(UTC_MINUTE, '2026-11-23T00:01', '2026-11-23T00:01')).toEqual([]);
    expect(bucketsBetween(UTC_MINUTE, '2026-11-23T00:00', '2026-11-23T05:00', 2)).toEqual([
      '2026-11-23T00:01',
      '2026-11-23T00:02',
    ]);
  });
});
