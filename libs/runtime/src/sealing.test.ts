import { randomBytes } from 'node:crypto';
import { parseSealingKeys, Sealer } from './sealing';

const keyText = (kid: string) => `${kid}:${randomBytes(32).toString('base64')}`;

describe('sealing secrets at rest', () => {
  const old = keyText('k2026a');
  const next = keyText('k2026b');

  it('round-trips, with a fresh IV each time, and never holds the clear text', () => {
    const sealer = new Sealer(parseSealingKeys(old));
    const one = sealer.seal('whsec_abc', 'store:1');
    const two = sealer.seal('whsec_abc', 'store:1');
    expect(one).not.toBe(two);
    expect(one).not.toContain('whsec_abc');
    expect(one.startsWith('v1.k2026a.')).toBe(true);
    expect(sealer.open(one, 'store:1')).toBe('whsec_abc');
    expect(sealer.open(two, 'store:1')).toBe('whsec_abc');
  });

  it('opens what an old key sealed after a rotation, and seals under the new one', () => {
    const before = new Sealer(parseSealingKeys(old)).seal('whsec_old', 'store:1');
    const after = new Sealer(parseSealingKeys(`${next},${old}`));
    expect(after.open(before, 'store:1')).toBe('whsec_old');
    expect(after.isCurrent(before)).toBe(false);
    const resealed = after.seal('whsec_old', 'store:1');
    expect(after.isCurrent(resealed)).toBe(true);
    expect(resealed.split('.')[1]).toBe('k2026b');
  });

  it('refuses a value whose key is gone, naming the key id', () => {
    const sealed = new Sealer(parseSealingKeys(old)).seal('whsec_x', 'store:1');
    expect(() => new Sealer(parseSealingKeys(next)).open(sealed, 'store:1')).toThrow(
      'sealed under key k2026a, which SECRETS_KEYS does not hold',
    );
  });

  it('refuses a changed value and a value moved to another record', () => {
    const sealer = new Sealer(parseSealingKeys(old));
    const sealed = sealer.seal('whsec_x', 'store:1');
    expect(() => sealer.open(sealed, 'store:2')).toThrow();
    const [format, kid, iv, body] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => sealer.open([format, kid, iv, flipped.toString('base64url')].join('.'), 'store:1')).toThrow();
    expect(() => sealer.open('whsec_x', 'store:1')).toThrow('not a sealed value');
  });

  it('reads SECRETS_KEYS strictly, never echoing a key', () => {
    expect(() => parseSealingKeys('')).toThrow('no key');
    expect(() => parseSealingKeys('bad id:AAAA')).toThrow('entry 1: the key id');
    expect(() => parseSealingKeys('k1:c2hvcnQ=')).toThrow('key k1: must be 32 bytes in base64, not 5');
    expect(() => parseSealingKeys(`${old},${old}`)).toThrow('key k2026a is given twice');
    expect(parseSealingKeys(` ${next} , ${old} `).map((k) => k.kid)).toEqual(['k2026b', 'k2026a']);
  });
});
