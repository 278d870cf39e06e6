import { createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from '@pix/runtime';
import { z } from 'zod';

/**
 * A dashboard session, held by the browser in a signed cookie: the store, the SHA-256 of the token
 * the merchant entered (the hash the gateway stores anyway, never the token), when it ends, and a
 * random id that the CSRF token is bound to. Nothing is kept on the server, so any replica reads
 * any session; every request still checks the token's hash against the auth cache, so revoking the
 * token or deactivating the store ends the session as fast as it ends the API access.
 */
export interface Session {
  storeId: string;
  tokenHash: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Random, per session: what its CSRF token is derived from. */
  id: string;
}

/** 16 random bytes in base64url: a session id or a login nonce. */
const NONCE = /^[A-Za-z0-9_-]{22}$/;

const PayloadSchema = z.object({
  s: z.string().min(1).max(64),
  t: z.string().regex(/^[0-9a-f]{64}$/),
  e: z.number().int().positive(),
  n: z.string().regex(NONCE),
});

const VERSION = 'v1';

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * Signs and reads session cookies, and derives their CSRF tokens. The configured secret is never
 * used directly: a key for signing and one for CSRF tokens are derived from it, so a value of one
 * kind can never pass for the other.
 */
export class SessionSigner {
  private readonly signingKey: Buffer;
  private readonly csrfKey: Buffer;

  constructor(
    secret: string,
    /** How long a session lasts from the login. */
    readonly ttlMs: number,
  ) {
    this.signingKey = createHmac('sha256', secret).update('dashboard session signing').digest();
    this.csrfKey = createHmac('sha256', secret).update('dashboard csrf').digest();
  }

  /** A new session of the store whose token hashes to `tokenHash`, and its cookie value. */
  issue(storeId: string, tokenHash: string, now = Date.now()): { session: Session; value: string } {
    const session = { storeId, tokenHash, expiresAt: now + this.ttlMs, id: b64url(randomBytes(16)) };
    const payload = b64url(
      JSON.stringify({ s: session.storeId, t: session.tokenHash, e: session.expiresAt, n: session.id }),
    );
    return { session, value: `${VERSION}.${payload}.${this.sign(payload)}` };
  }

  /** The session a cookie value holds; null when it is malformed, not signed by us, or expired. */
  read(value: string | undefined, now = Date.now()): Session | null {
    if (!value) return null;
    const [version, payload, signature, ...rest] = value.split('.');
    if (version !== VERSION || !payload || !signature || rest.length > 0) return null;
    if (!sameSecret(signature, this.sign(payload))) return null;
    let parsed: z.infer<typeof PayloadSchema>;
    try {
      const result = PayloadSchema.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
      if (!result.success) return null;
      parsed = result.data;
    } catch {
      return null;
    }
    if (parsed.e <= now) return null;
    return { storeId: parsed.s, tokenHash: parsed.t, expiresAt: parsed.e, id: parsed.n };
  }

  /** The CSRF token of a session: pages carry it, every state-changing request sends it back. */
  csrfToken(session: Session): string {
    return this.mac(`session:${session.id}`);
  }

  /**
   * The browser's login nonce (set as a cookie) and the CSRF token the sign-in form carries with it.
   * A browser that has one keeps it: every sign-in page it has open carries a token of the same
   * nonce, so a second tab does not void the first one's form.
   */
  loginNonce(current?: string): { nonce: string; csrf: string } {
    const nonce = current !== undefined && NONCE.test(current) ? current : b64url(randomBytes(16));
    return { nonce, csrf: this.loginCsrf(nonce) };
  }

  loginCsrf(nonce: string): string {
    return this.mac(`login:${nonce}`);
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.signingKey).update(payload).digest('base64url');
  }

  private mac(text: string): string {
    return createHmac('sha256', this.csrfKey).update(text).digest('base64url');
  }
}
