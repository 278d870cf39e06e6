import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * Reads the environment through a zod schema. A service that is misconfigured must not start half
 * working: it prints every problem at once and exits non-zero.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`)
    .join('\n');
  process.stderr.write(`Invalid configuration:\n${problems}\n`);
  process.exit(1);
}

/** A duration written as 500ms, 5s, 5m, 2h or 1d (a bare number means seconds), in milliseconds. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) return null;
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit];
  return factor === undefined ? null : Math.round(value * factor);
}

/** The milliseconds `text` says, or the issue of a value that is not a duration. */
function durationMs(text: string, ctx: z.RefinementCtx): number {
  const ms = parseDuration(text);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: `not a duration (e.g. 30s, 5m, 2h): ${text}` });
    return z.NEVER;
  }
  return ms;
}

/** zod type for a duration variable; the parsed value is milliseconds. */
export function duration(defaultValue: string) {
  return z.string().default(defaultValue).transform(durationMs);
}

/** zod type for a duration variable without a default: milliseconds, or undefined when unset. */
export function optionalDuration() {
  return z
    .string()
    .optional()
    .transform((text, ctx) => (text === undefined ? undefined : durationMs(text, ctx)));
}

/** zod type for a TCP port variable. */
export function port(defaultValue: number) {
  return z.coerce.number().int().min(0).max(65535).default(defaultValue);
}

/** zod type for a boolean flag variable written as true/false/1/0. */
export function flag(defaultValue: boolean) {
  return z
    .enum(['true', 'false', '1', '0'])
    .default(defaultValue ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');
}

/** An Ed25519 key read from base64 DER (PKCS#8 for a private key, SPKI for a public one), or null. */
function ed25519Key(text: string, kind: 'private' | 'public'): KeyObject | null {
  try {
    const key = Buffer.from(text.trim(), 'base64');
    const parsed =
      kind === 'private'
        ? createPrivateKey({ key, format: 'der', type: 'pkcs8' })
        : createPublicKey({ key, format: 'der', type: 'spki' });
    return parsed.asymmetricKeyType === 'ed25519' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * zod type for the key a service signs the facts it states with (docs/security.md: signed facts):
 * an Ed25519 private key, base64 of its PKCS#8 DER. Required: no default, and a value that is not
 * one is refused without being printed.
 */
export function factSigningKey() {
  return z.string({ error: 'required: an Ed25519 private key, base64 PKCS#8 DER' }).transform((text, ctx) => {
    const key = ed25519Key(text, 'private');
    if (key) return key;
    ctx.addIssue({ code: 'custom', message: 'not an Ed25519 private key (base64 PKCS#8 DER)' });
    return z.NEVER;
  });
}

/**
 * zod type for the keys a service accepts a producer's facts signed with: Ed25519 public keys,
 * base64 SPKI DER, comma-separated (the new key beside the old one while a rotation lasts). Required.
 */
export function factVerifyingKeys() {
  return z
    .string({ error: 'required: Ed25519 public keys, base64 SPKI DER, comma-separated' })
    .transform((text, ctx) => {
      const keys = text
        .split(',')
        .filter((part) => part.trim() !== '')
        .map((part) => ed25519Key(part, 'public'));
      if (keys.length > 0 && keys.every((key) => key !== null)) return keys as KeyObject[];
      ctx.addIssue({ code: 'custom', message: 'not a list of Ed25519 public keys (base64 SPKI DER, comma-separated)' });
      return z.NEVER;
    });
}

/**
 * zod type for a setting that guards a door (a key, a shared secret): it has no default, so a
 * deployment that leaves it out refuses to start and names it. `make up` and the tests generate
 * their own (tools/devstack/src/local-secrets.ts); Kubernetes reads them from Secrets.
 */
export function secret(minLength: number) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined ? 'is required: a secret guarding a door has no default' : undefined,
    })
    .min(minLength);
}

/** Settings every service shares. */
export const CommonEnv = {
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /**
   * The file holding this service's nkey seed, its identity on NATS (`make up` and Kubernetes always
   * set it). Unset, the service connects anonymously, which only a NATS without authorization takes.
   */
  NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
  /** The certificate authority that signed NATS's certificate, when NATS speaks TLS (Kubernetes). */
  NATS_CA_FILE: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_GRACE: duration('20s'),
};

/**
 * Where a service's database is, and its own login there. The password never rides in the URL,
 * which start-up and error lines may show; with MongoDB the login is checked against `admin`.
 */
export const MongoEnv = {
  MONGO_URL: z.string().default('mongodb://127.0.0.1:27017/pix'),
  MONGO_USERNAME: z.string().min(1).optional(),
  MONGO_PASSWORD: z.string().min(1).optional(),
};

export { z };
