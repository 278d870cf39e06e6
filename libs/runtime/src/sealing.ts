import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** One key of SECRETS_KEYS: its id, written into every value it seals, and 32 bytes of AES-256. */
export interface SealingKey {
  kid: string;
  key: Buffer;
}

const KID = /^[A-Za-z0-9_-]{1,32}$/;
/**
 * v2 binds a value to its context and its expiry; v1 (before issue 37) to its context only, so
 * whoever could write the record could lengthen a replaced secret's life. v1 is still opened, and
 * is never current: a re-seal, or the record's next read, writes it again as v2.
 */
const FORMAT = 'v2';
const LEGACY_FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What a sealed value is bound to, its associated data: what it belongs to (e.g. a store's id), and
 * until when it holds (null: until replaced). A value copied onto another record, or whose record's
 * expiry was changed, does not open.
 */
export interface SealedBinding {
  context: string;
  expiresAt: Date | null;
}

/** A value sealed under a key SECRETS_KEYS no longer holds: nothing here can open it again. */
export class RetiredSealingKey extends Error {
  constructor(readonly kid: string) {
    super(`sealed under key ${kid}, which SECRETS_KEYS does not hold`);
    this.name = 'RetiredSealingKey';
  }
}

/** A v2 value's associated data: JSON, so that no context can be read as another expiry. */
function associatedData(format: string, binding: SealedBinding): Buffer {
  const data =
    format === LEGACY_FORMAT
      ? binding.context
      : JSON.stringify([binding.context, binding.expiresAt ? binding.expiresAt.toISOString() : null]);
  return Buffer.from(data, 'utf8');
}

/**
 * Reads SECRETS_KEYS: `kid:base64key` entries separated by commas, the first one sealing and every
 * one opening. Throws with what is wrong (never with a key's bytes).
 */
export function parseSealingKeys(text: string): SealingKey[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('no key: expected kid:base64key[,kid:base64key...]');
  const keys = entries.map((entry, i) => {
    const at = entry.indexOf(':');
    const kid = entry.slice(0, Math.max(0, at));
    if (!KID.test(kid)) throw new Error(`entry ${i + 1}: the key id must be 1-32 of A-Z a-z 0-9 _ -`);
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (key.length !== 32) throw new Error(`key ${kid}: must be 32 bytes in base64, not ${key.length}`);
    return { kid, key };
  });
  const kids = keys.map((k) => k.kid);
  const repeated = kids.find((kid, i) => kids.indexOf(kid) !== i);
  if (repeated) throw new Error(`key ${repeated} is given twice`);
  return keys;
}

/**
 * Envelope-style sealing of small secrets at rest: AES-256-GCM under the first key, a fresh
 * 96-bit IV each time, and what the value is bound to (SealedBinding: its record and its expiry)
 * as additional data. A sealed value names its key (`v2.<kid>.<iv>.<ciphertext+tag>`,
 * base64url), so keys can be rotated: a new key goes first, the old ones stay to open what they
 * sealed until everything is sealed again (isCurrent).
 */
export class Sealer {
  private readonly byKid: Map<string, Buffer>;
  private readonly current: SealingKey;

  constructor(keys: readonly SealingKey[]) {
    const [first] = keys;
    if (!first) throw new Error('a Sealer needs at least one key');
    this.current = first;
    this.byKid = new Map(keys.map((k) => [k.kid, k.key]));
  }

  /** The id of the key that seals. */
  get currentKid(): string {
    return this.current.kid;
  }

  seal(plain: string, binding: SealedBinding): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(FORMAT, binding));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [FORMAT, this.current.kid, iv.toString('base64url'), body.toString('base64url')].join('.');
  }

  /**
   * The clear value; throws RetiredSealingKey when its key is not configured, and another error
   * when the value, its context or its expiry was changed.
   */
  open(sealed: string, binding: SealedBinding): string {
    const [format, kid, iv, body] = sealed.split('.');
    if ((format !== FORMAT && format !== LEGACY_FORMAT) || !kid || !iv || !body) throw new Error('not a sealed value');
    const key = this.byKid.get(kid);
    if (!key) throw new RetiredSealingKey(kid);
    const data = Buffer.from(body, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(format, binding));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  }

  /** Whether a sealed value is in the current format under the current key (else a re-seal rewrites it). */
  isCurrent(sealed: string): boolean {
    const [format, kid] = sealed.split('.');
    return format === FORMAT && kid === this.current.kid;
  }
}
