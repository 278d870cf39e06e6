import { randomBytes } from 'node:crypto';

/**
 * The access tokens the PSP issued (OAuth2 client credentials), in memory: a restarted simulator
 * knows none, and a client renews its token on the 401 that follows, as with a PSP that revoked it.
 */
export class AccessTokens {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly ttlMs: number) {}

  issue(now = Date.now()): { token: string; expiresInSeconds: number } {
    this.forgetExpired(now);
    const token = randomBytes(24).toString('base64url');
    this.expiries.set(token, now + this.ttlMs);
    return { token, expiresInSeconds: Math.floor(this.ttlMs / 1000) };
  }

  valid(token: string | undefined, now = Date.now()): boolean {
    const expiresAt = token === undefined ? undefined : this.expiries.get(token);
    return expiresAt !== undefined && expiresAt > now;
  }

  private forgetExpired(now: number): void {
    for (const [token, expiresAt] of this.expiries) if (expiresAt <= now) this.expiries.delete(token);
  }
}
