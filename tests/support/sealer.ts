import { createCipheriv, randomBytes } from 'node:crypto';
import { parseSealingKeys, Sealer } from '@pix/runtime';

/** A SECRETS_KEYS entry with a fresh random key, as `kid:base64key`. */
export function sealingKeyText(kid: string): string {
  return `${kid}:${randomBytes(32).toString('base64')}`;
}

/** A Sealer for storage used directly by a test, over the given SECRETS_KEYS (a fresh key by default). */
export function testSealer(keys = sealingKeyText('test')): Sealer {
  return new Sealer(parseSealingKeys(keys));
}

/**
 * A value as the v1 format sealed it before issue 37 (its context alone as associated data, no
 * expiry), under the first key of `keys`: what databases written before then hold.
 */
export function sealedAsV1(keys: string, plain: string, context: string): string {
  const [{ kid, key }] = parseSealingKeys(keys) as [{ kid: string; key: Buffer }];
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return ['v1', kid, iv.toString('base64url'), body.toString('base64url')].join('.');
}
