import { createCipheriv, randomBytes } from 'node:crypto';
import { parseSealingKeys, RetiredSealingKey, Sealer, type SealedBinding } from './sealing';

const keyText = (kid: string) => `${kid}:${randomBytes(32).toString('base64')}`;
const store1: SealedBinding = { context: 'store:1', expiresAt: null };

/** A value as the v1 format sealed it before issue 37: the context alone as associated data. */
function sealedAsV1(keys: string, plain: string, context: string): string {
  const [{ kid, key }] = parseSealingKeys(keys) as [{ kid: string; key: Buffer }];
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return ['v1', kid, iv.toString('base64url'), body.toString('base64url')].join('.');
}

describe('sealing secrets at rest', () => {
  const old = keyText('k2026a');
  const next = keyText('k2026b');

  it('round-trips, with a fresh IV each time, and never holds the clear text', () => {
    const sealer = new Sealer(parseSealingKeys(old));
    const one = sealer.seal('whsec_abc', store1);
    const two = sealer.seal('whsec_abc', store1);
    expect(one).not.toBe(two);
    expect(one).not.toContain('whsec_abc');
    expect(one.startsWith('v2.k2026a.')).toBe(true);
    expect(sealer.open(one, store1)).toBe('whsec_abc');
    expect(sealer.open(two, store1)).toBe('whsec_abc');
    expect(sealer.isCurrent(one)).toBe(true);
  });

  it('opens what an old key sealed after a rotation, and seals under the new one', () => {
    const before = new Sealer(parseSealingKeys(old)).seal('whsec_old', store1);
    const after = new Sealer(parseSealingKeys(`${next},${old}`));
    expect(after.open(before, store1)).toBe('whsec_old');
    expect(after.isCurrent(before)).toBe(false);
    const resealed = after.seal('whsec_old', store1);
    expect(after.isCurrent(resealed)).toBe(true);
    expect(resealed.split('.')[1]).toBe('k2026b');
  });

  it('refuses a value whose key is gone with RetiredSealingKey, naming the key id', () => {
    const sealed = new Sealer(parseSealingKeys(old)).seal('whsec_x', store1);
    const open = () => new Sealer(parseSealingKeys(next)).open(sealed, store1);
    expect(open).toThrow(RetiredSealingKey);
    expect(open).toThrow('sealed under key k2026a, which SECRETS_KEYS does not hold');
    try {
      open();
    } catch (err) {
      expect((err as RetiredSealingKey).kid).toBe('k2026a');
    }
  });

  it('refuses a changed value, a value moved to another record, and a value given another expiry', () => {
    const sealer = new Sealer(parseSealingKeys(old));
    const expiresAt = new Date('2026-11-29T10:00:00.000Z');
    const sealed = sealer.seal('whsec_x', { context: 'store:1', expiresAt });
    expect(sealer.open(sealed, { context: 'store:1', expiresAt: new Date(expiresAt.getTime()) })).toBe('whsec_x');
    expect(() => sealer.open(sealed, { context: 'store:2', expiresAt })).toThrow();
    // A replaced secret whose record was edited to live longer, or for ever, does not open.
    expect(() =>
      sealer.open(sealed, { context: 'store:1', expiresAt: new Date('2027-11-29T10:00:00.000Z') }),
    ).toThrow();
    expect(() => sealer.open(sealed, store1)).toThrow();
    expect(() => sealer.open(sealer.seal('whsec_x', store1), { context: 'store:1', expiresAt })).toThrow();
    const [format, kid, iv, body] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() =>
      sealer.open([format, kid, iv, flipped.toString('base64url')].join('.'), { context: 'store:1', expiresAt }),
    ).toThrow();
    expect(() => sealer.open('whsec_x', store1)).toThrow('not a sealed value');
    expect(() => sealer.open(`v9.${kid}.${iv}.${body}`, store1)).toThrow('not a sealed value');
  });

  it('still opens a v1 value (its context alone bound), which is never current so it is sealed again', () => {
    const legacy = sealedAsV1(old, 'whsec_legacy', 'store:1');
    const sealer = new Sealer(parseSealingKeys(old));
    // v1 bound no expiry: whatever the record says now, the value opens, once, to be resealed.
    expect(sealer.open(legacy, { context: 'store:1', expiresAt: new Date() })).toBe('whsec_legacy');
    expect(sealer.open(legacy, store1)).toBe('whsec_legacy');
    expect(() => sealer.open(legacy, { context: 'store:2', expiresAt: null })).toThrow();
    expect(sealer.isCurrent(legacy)).toBe(false);
    expect(() => new Sealer(parseSealingKeys(next)).open(legacy, store1)).toThrow(RetiredSealingKey);
  });

  it('reads SECRETS_KEYS strictly, never echoing a key', () => {
    expect(() => parseSealingKeys('')).toThrow('no key');
    expect(() => parseSealingKeys('bad id:AAAA')).toThrow('entry 1: the key id');
    expect(() => parseSealingKeys('k1:c2hvcnQ=')).toThrow('key k1: must be 32 bytes in base64, not 5');
    expect(() => parseSealingKeys(`${old},${old}`)).toThrow('key k2026a is given twice');
    expect(parseSealingKeys(` ${next} , ${old} `).map((k) => k.kid)).toEqual(['k2026b', 'k2026a']);
  });
});
