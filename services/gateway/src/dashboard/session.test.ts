import { createHmac } from 'node:crypto';
import { SessionSigner } from './session';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const HASH = 'ab'.repeat(32);
const STORE = '5f0c6f3e-2a55-4a8e-9a0e-3f2d7c1b9e11';
const HOUR = 60 * 60 * 1000;

describe('SessionSigner', () => {
  const signer = new SessionSigner(SECRET, 8 * HOUR);
  const now = Date.parse('2026-11-24T12:00:00Z');

  it('reads back the session it issued, which holds the token hash and never the token', () => {
    const { session, value } = signer.issue(STORE, HASH, now);
    expect(session).toEqual({ storeId: STORE, tokenHash: HASH, expiresAt: now + 8 * HOUR, id: expect.any(String) });
    expect(signer.read(value, now + 1000)).toEqual(session);
    const payload = Buffer.from(value.split('.')[1] ?? '', 'base64url').toString('utf8');
    expect(JSON.parse(payload)).toEqual({ s: STORE, t: HASH, e: now + 8 * HOUR, n: session.id });
    expect(value).not.toContain('pxt_');
  });

  it('refuses an expired session', () => {
    const { value } = signer.issue(STORE, HASH, now);
    expect(signer.read(value, now + 8 * HOUR - 1)).not.toBeNull();
    expect(signer.read(value, now + 8 * HOUR)).toBeNull();
  });

  it('refuses a tampered payload, a forged or missing signature, and garbage', () => {
    const { value } = signer.issue(STORE, HASH, now);
    const [version, payload, signature] = value.split('.') as [string, string, string];
    const other = Buffer.from(
      JSON.stringify({ s: 'another-store', t: HASH, e: now + 8 * HOUR, n: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    ).toString('base64url');
    const longer = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), e: now + 1000 * HOUR }),
    ).toString('base64url');
    for (const bad of [
      `${version}.${other}.${signature}`,
      `${version}.${longer}.${signature}`,
      `${version}.${payload}.${signature.slice(0, -2)}AA`,
      `${version}.${payload}.`,
      `${version}.${payload}`,
      `v2.${payload}.${signature}`,
      `${value}.extra`,
      '',
      'garbage',
    ]) {
      expect(signer.read(bad, now)).toBeNull();
    }
    expect(signer.read(undefined, now)).toBeNull();
  });

  it('refuses a session signed with another secret, even a well-formed one', () => {
    const { value } = new SessionSigner('another-secret-of-at-least-32-characters', 8 * HOUR).issue(STORE, HASH, now);
    expect(signer.read(value, now)).toBeNull();
    // Signed with the raw secret instead of the derived signing key: refused too.
    const payload = value.split('.')[1] ?? '';
    const raw = createHmac('sha256', SECRET).update(payload).digest('base64url');
    expect(signer.read(`v1.${payload}.${raw}`, now)).toBeNull();
  });

  it('refuses a correctly signed payload whose fields are not a session', () => {
    // What a signer would make of a payload missing the token hash: the schema refuses it.
    const forge = (fields: object) => {
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      const key = createHmac('sha256', SECRET).update('dashboard session signing').digest();
      return `v1.${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
    };
    const { session } = signer.issue(STORE, HASH, now);
    const good = { s: STORE, t: HASH, e: now + HOUR, n: session.id };
    expect(signer.read(forge(good), now)).not.toBeNull();
    expect(signer.read(forge({ ...good, t: 'pxt_the-token-itself' }), now)).toBeNull();
    expect(signer.read(forge({ ...good, e: 'tomorrow' }), now)).toBeNull();
    expect(signer.read(forge({ s: STORE, e: now + HOUR, n: session.id }), now)).toBeNull();
  });

  it('binds the CSRF token to the session, and the login CSRF token to its nonce', () => {
    const a = signer.issue(STORE, HASH, now).session;
    const b = signer.issue(STORE, HASH, now).session;
    expect(a.id).not.toBe(b.id);
    expect(signer.csrfToken(a)).toBe(signer.csrfToken({ ...a }));
    expect(signer.csrfToken(a)).not.toBe(signer.csrfToken(b));
    const login = signer.loginNonce();
    expect(signer.loginCsrf(login.nonce)).toBe(login.csrf);
    expect(signer.loginCsrf(signer.loginNonce().nonce)).not.toBe(login.csrf);
    // A session's CSRF token is never the one of a login nonce equal to its id.
    expect(signer.loginCsrf(a.id)).not.toBe(signer.csrfToken(a));
  });

  it("keeps a browser's login nonce, so each sign-in page it has open can sign in", () => {
    const first = signer.loginNonce();
    const second = signer.loginNonce(first.nonce);
    expect(second).toEqual(first);
    // A cookie that holds no nonce of ours is replaced by a new one.
    for (const cookie of ['', 'short', `${first.nonce}x`, 'a'.repeat(21) + '!']) {
      expect(signer.loginNonce(cookie).nonce).not.toBe(cookie);
    }
  });
});
