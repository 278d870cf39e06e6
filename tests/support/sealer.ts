import { randomBytes } from 'node:crypto';
import { parseSealingKeys, Sealer } from '@pix/runtime';

/** A SECRETS_KEYS entry with a fresh random key, as `kid:base64key`. */
export function sealingKeyText(kid: string): string {
  return `${kid}:${randomBytes(32).toString('base64')}`;
}

/** A Sealer for storage used directly by a test, over the given SECRETS_KEYS (a fresh key by default). */
export function testSealer(keys = sealingKeyText('test')): Sealer {
  return new Sealer(parseSealingKeys(keys));
}
