import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a text, in hex: how a secret (a token, an Idempotency-Key) is stored and looked up. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Whether a given secret is the expected one, in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
