import { parseDuration, duration, flag } from './index';

describe('parseDuration', () => {
  it.each([
    ['0s', 0],
    ['5s', 5000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['250ms', 250],
    ['30', 30_000],
    ['1.5s', 1500],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'abc', '5x', '-1s', 's'])('refuses %p', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});

describe('zod helpers', () => {
  it('duration uses its default and rejects garbage', () => {
    expect(duration('30m').parse(undefined)).toBe(1_800_000);
    expect(duration('30m').safeParse('soon').success).toBe(false);
  });

  it('flag reads true/false/1/0 only', () => {
    expect(flag(false).parse('true')).toBe(true);
    expect(flag(true).parse('0')).toBe(false);
    expect(flag(true).parse(undefined)).toBe(true);
    expect(flag(false).safeParse('yes').success).toBe(false);
  });
});
