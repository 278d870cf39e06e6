/**
 * What keeps secrets out of log lines, whatever a caller hands the logger: values under a secret's
 * name are censored at any depth, errors are told by their own words only (never the options,
 * request or response a client library keeps on them: got's RequestError holds the TLS key, the
 * headers and the body it sent), and text is cleared of the shapes a credential takes inside a
 * message (a PEM private key, an `Authorization` value, a URL's password, an nkey seed).
 */

export const CENSORED = '[redacted]';

/**
 * Words that name a secret, or a customer's data (e-mail, LGPD): a key holding one of them is
 * censored (`key`, `privateKey`, `https.key`, `FACT_SIGNING_KEY`, `x-psp-callback-secret`,
 * `webhook-signature`, `set-cookie`, `access_token`, `nkeySeed`, `sealed`).
 */
const SECRET_WORDS = new Set([
  'key',
  'keys',
  'cert',
  'certs',
  'certificate',
  'pfx',
  'passphrase',
  'authorization',
  'cookie',
  'cookies',
  'password',
  'passwords',
  'passwd',
  'secret',
  'secrets',
  'token',
  'tokens',
  'seed',
  'seeds',
  'signature',
  'signatures',
  'credentials',
  'sealed',
  'email',
]);

/** A last word that makes the name one about a secret rather than the secret: `keyId`, `tokenCount`, `seedFile`. */
const ABOUT_WORDS = new Set(['id', 'ids', 'kid', 'count', 'file', 'path', 'name', 'names', 'kind', 'type', 'length']);

/** Names seen, with their verdict; bounded, as request headers bring names a client chose. */
const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 2048;

/** Whether a property of this name holds a secret (case, `-`, `_` and camelCase are word breaks). */
export function isSecretName(name: string): boolean {
  let verdict = verdicts.get(name);
  if (verdict === undefined) {
    const words = name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    verdict = words.some((word) => SECRET_WORDS.has(word)) && !ABOUT_WORDS.has(words[words.length - 1] ?? '');
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(name, verdict);
  }
  return verdict;
}

/**
 * The shapes a credential takes inside free text: a PEM private key (to its end, or to the end of a
 * cut text), an HTTP credential after its scheme, the password of a URL's user info, an nkey seed.
 */
const CREDENTIAL_IN_TEXT =
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)|\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]{6,}|(\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s:/@]*):[^\s@]+@|\bS[A-Z][A-Z2-7]{56}\b/g;

/** Text with every credential-shaped part censored. */
export function scrubText(text: string): string {
  return text.replace(CREDENTIAL_IN_TEXT, (found, scheme?: string, userinfo?: string) => {
    if (scheme) return `${scheme} ${CENSORED}`;
    if (userinfo) return `${userinfo}:${CENSORED}@`;
    return CENSORED;
  });
}

/** An error's own properties worth a line: what it is and where it came from, never an object it carries. */
const ERROR_FIELDS = ['code', 'errno', 'syscall', 'address', 'port', 'status', 'statusCode', 'codeName'] as const;
/** What an error may carry of a message it sent or received (body-parser's `body`, got's `input`): never written. */
const ERROR_CONTENT = new Set(['body', 'rawBody', 'data', 'payload', 'input', 'text', 'headers']);
/** Causes followed, and errors of an AggregateError kept: a log line has no use for more. */
const MAX_CAUSES = 5;
const MAX_AGGREGATED = 10;
/** Deeper than this, an object is not walked (a log line's fields are a few levels deep). */
const MAX_DEPTH = 10;

type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

function isPrimitive(value: unknown): value is string | number | boolean | bigint {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint';
}

/**
 * An error as a log line tells it: its type, message and stack, its primitive own properties
 * (code, errno, status...) and the same of its causes. Objects it carries (got's `options`,
 * `request`, `response` and `timings`; the MongoDB driver's `errorResponse` and topology `reason`)
 * are left out, whatever they hold.
 */
export function errorFields(err: Error, causes = 0): Record<string, Plain> {
  const fields: Record<string, Plain> = {
    type: err.name || err.constructor?.name || 'Error',
    message: scrubText(String(err.message)),
  };
  if (typeof err.stack === 'string') fields.stack = scrubText(err.stack);
  const own = err as unknown as Record<string, unknown>;
  for (const name of [...ERROR_FIELDS, ...Object.keys(err)]) {
    if (name in fields || name === 'name' || name === 'cause' || name === 'errors' || ERROR_CONTENT.has(name)) continue;
    const value = own[name];
    if (isSecretName(name)) {
      if (value !== undefined) fields[name] = CENSORED;
    } else if (isPrimitive(value)) {
      fields[name] = typeof value === 'string' ? scrubText(value) : typeof value === 'bigint' ? String(value) : value;
    } else if (Array.isArray(value) && value.every(isPrimitive)) {
      fields[name] = value.map((item) => (typeof item === 'string' ? scrubText(item) : String(item)));
    }
  }
  const { cause } = err as { cause?: unknown };
  if (cause instanceof Error && causes < MAX_CAUSES) fields.cause = errorFields(cause, causes + 1);
  else if (isPrimitive(cause)) fields.cause = scrubText(String(cause));
  if (err instanceof AggregateError && Array.isArray(err.errors)) {
    fields.errors = err.errors
      .slice(0, MAX_AGGREGATED)
      .map((inner: unknown) => (inner instanceof Error ? errorFields(inner, causes + 1) : redact(inner)));
  }
  return fields;
}

/**
 * A copy of a value fit for a log line: secrets' names censored at any depth, errors as
 * errorFields tells them, text scrubbed, cycles and depth cut. What JSON would make of an object
 * (toJSON: a Date, a URL, an ObjectId) is what is walked.
 */
export function redact(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): Plain {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return String(value);
  if (typeof value !== 'object') return null; // functions, symbols: JSON leaves them out
  if (value instanceof Error) return errorFields(value);
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    const { toJSON } = value as { toJSON?: unknown };
    if (typeof toJSON === 'function') return redact(toJSON.call(value), depth + 1, seen);
    if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, seen));
    const copy: Record<string, Plain> = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined || typeof item === 'function') continue;
      copy[key] = isSecretName(key) ? CENSORED : redact(item, depth + 1, seen);
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}

/** A logged object made fit: redact(), for the top level of a line (which is always an object). */
export function redactFields(fields: object): Record<string, unknown> {
  const copy = redact(fields);
  return copy !== null && typeof copy === 'object' && !Array.isArray(copy) ? copy : {};
}
