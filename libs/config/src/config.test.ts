import { parseDuration, duration, flag, secret } from './index';

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

  it('secret has no default: missing, it is refused as required; short, as short', () => {
    const missing = secret(16).safeParse(undefined);
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.message).toBe('is required: a secret guarding a door has no default');
    expect(secret(16).safeParse('short').error?.issues[0]?.message).toMatch(/>=16 characters/);
    expect(secret(16).parse('a'.repeat(16))).toBe('a'.repeat(16));
  });

  it('flag reads true/false/1/0 only', () => {
    expect(flag(false).parse('true')).toBe(true);
    expect(flag(true).parse('0')).toBe(false);
    expect(flag(true).parse(undefined)).toBe(true);
    expect(flag(false).safeParse('yes').success).toBe(false);
  });
});
