import { generateKeyPairSync } from 'node:crypto';
import { parseDuration, duration, factSigningKey, factVerifyingKeys, flag, secret } from './index';

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

describe('fact keys', () => {
  const pair = () => generateKeyPairSync('ed25519');
  const privateText = (key = pair().privateKey) => key.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  const publicText = (key = pair().publicKey) => key.export({ format: 'der', type: 'spki' }).toString('base64');
  const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
    result.error?.issues.map((issue) => issue.message) ?? [];

  it('are required: no default', () => {
    expect(messages(factSigningKey().safeParse(undefined))).toEqual([
      'required: an Ed25519 private key, base64 PKCS#8 DER',
    ]);
    expect(messages(factVerifyingKeys().safeParse(undefined))).toEqual([
      'required: Ed25519 public keys, base64 SPKI DER, comma-separated',
    ]);
  });

  it('read an Ed25519 private key and a list of public keys', () => {
    const { privateKey, publicKey } = pair();
    expect(factSigningKey().parse(privateText(privateKey)).asymmetricKeyType).toBe('ed25519');
    const keys = factVerifyingKeys().parse(`${publicText(publicKey)}, ${publicText()}`);
    expect(keys).toHaveLength(2);
    expect(keys[0]?.equals(publicKey)).toBe(true);
  });

  it('refuse anything else without printing it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    const rsaText = rsa.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    for (const text of ['marker-secret-value', rsaText, publicText()]) {
      const found = messages(factSigningKey().safeParse(text));
      expect(found).toEqual(['not an Ed25519 private key (base64 PKCS#8 DER)']);
      expect(found.join()).not.toContain(text);
    }
    for (const text of ['', 'marker-secret-value', `${publicText()},${privateText()}`]) {
      expect(messages(factVerifyingKeys().safeParse(text))).toEqual([
        'not a list of Ed25519 public keys (base64 SPKI DER, comma-separated)',
      ]);
    }
  });
});
