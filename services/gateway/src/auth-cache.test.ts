import type { KV } from '@nats-io/kv';
import { AuthBucket } from '@pix/contracts';
import { createLogger } from '@pix/observability';
import type { AuthBucketChanges, AuthBucketEntry } from './auth-bucket-feed';
import { AuthCache, DEFAULT_AUTH_CACHE_LIMITS, type AuthRecords } from './auth-cache';
import { hashToken, type TokenRecord } from './storage';

/** The database as the cache reads it: what these return, the test sets. */
const findTokenMock = jest.fn<Promise<TokenRecord | null>, [string]>();
const findStoreActiveMock = jest.fn<Promise<boolean | null>, [string]>();
const records: AuthRecords = { token: findTokenMock, storeActive: findStoreActiveMock };

/** The bucket's changes, which the test makes, like the AUTH bucket's feed would. */
class FakeChanges implements AuthBucketChanges {
  private apply: ((entry: AuthBucketEntry) => void) | undefined;
  private forget: (() => void) | undefined;
  private revision = 0;

  follow(forget: () => void, apply: (entry: AuthBucketEntry) => void): Promise<void> {
    [this.forget, this.apply] = [forget, apply];
    forget();
    return Promise.resolve();
  }

  put(key: string, value: unknown): void {
    this.apply?.({ key, revision: ++this.revision, deleted: false, json: () => value });
  }

  /** A NATS reconnection: the feed may have missed changes. */
  reconnected(): void {
    this.forget?.();
  }

  stop(): void {
    this.apply = undefined;
  }
}

const watch = new FakeChanges();
const kv = { put: jest.fn(async () => 1) } as unknown as KV;
const logger = createLogger('test', 'silent');
const tick = () => new Promise((resolve) => setImmediate(resolve));

const token = 'pxt_a-token';
const record = { storeId: 'store-1', expiresAt: null, revokedAt: null };

let cache: AuthCache;

/** Authenticates the token while the watch revokes it, the database read still under way. */
async function revokedDuringItsRead() {
  let answer: (value: typeof record) => void = () => undefined;
  findTokenMock.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
  const pending = cache.authenticate(token);
  watch.put(AuthBucket.tokenKey(hashToken(token)), { revoked: true });
  await tick();
  answer(record);
  return pending;
}
beforeEach(async () => {
  findTokenMock.mockReset().mockResolvedValue(record);
  findStoreActiveMock.mockReset().mockResolvedValue(true);
  cache = new AuthCache(kv, watch, records, logger, { ...DEFAULT_AUTH_CACHE_LIMITS, maxTokens: 2, maxUnknown: 2 });
  await cache.start();
});
afterEach(async () => {
  await cache.stop();
});

describe('AuthCache', () => {
  it('asks MongoDB once per token and store, then answers from memory', async () => {
    expect(await cache.authenticate(token)).toEqual({ ok: true, storeId: 'store-1', livemode: false });
    expect(await cache.authenticate(token)).toEqual({ ok: true, storeId: 'store-1', livemode: false });
    expect(findTokenMock).toHaveBeenCalledTimes(1);
    expect(findStoreActiveMock).toHaveBeenCalledTimes(1);
  });

  it("tells a token's mode from its record: live, test, or none (issued before modes: test)", async () => {
    findTokenMock.mockResolvedValueOnce({ ...record, livemode: false });
    expect(await cache.authenticate('pxt_test_b')).toEqual({ ok: true, storeId: 'store-1', livemode: false });
    findTokenMock.mockResolvedValueOnce({ storeId: 'store-1', expiresAt: null, revokedAt: null });
    expect(await cache.authenticate('pxt_c')).toEqual({ ok: true, storeId: 'store-1', livemode: false });
    findTokenMock.mockResolvedValueOnce({ ...record, livemode: true });
    expect(await cache.authenticate('pxt_live_a')).toEqual({ ok: true, storeId: 'store-1', livemode: true });
    // Known now, it answers its mode from memory.
    expect(cache.fromMemory(hashToken('pxt_live_a'))).toEqual({ ok: true, storeId: 'store-1', livemode: true });
  });

  it('refuses unknown, revoked and expired tokens, and tokens of unknown stores', async () => {
    findTokenMock.mockResolvedValueOnce(null);
    expect(await cache.authenticate('pxt_unknown')).toEqual({ ok: false, reason: 'token_invalid' });
    findTokenMock.mockResolvedValueOnce({ ...record, revokedAt: new Date() });
    expect(await cache.authenticate('pxt_revoked')).toEqual({ ok: false, reason: 'token_invalid' });
    findTokenMock.mockResolvedValueOnce({ ...record, expiresAt: new Date(1000) });
    expect(await cache.authenticate('pxt_expired', 1000)).toEqual({ ok: false, reason: 'token_invalid' });
    findTokenMock.mockResolvedValueOnce({ ...record, storeId: 'gone' });
    findStoreActiveMock.mockResolvedValueOnce(null);
    expect(await cache.authenticate('pxt_orphan')).toEqual({ ok: false, reason: 'token_invalid' });
  });

  it('applies a revocation and a (de)activation seen on the watch', async () => {
    expect((await cache.authenticate(token)).ok).toBe(true);
    watch.put(AuthBucket.storeKey('store-1'), { active: false });
    await tick();
    expect(await cache.authenticate(token)).toEqual({ ok: false, reason: 'store_inactive' });
    watch.put(AuthBucket.storeKey('store-1'), { active: true });
    await tick();
    expect((await cache.authenticate(token)).ok).toBe(true);
    watch.put(AuthBucket.tokenKey(hashToken(token)), { revoked: true });
    await tick();
    expect(await cache.authenticate(token)).toEqual({ ok: false, reason: 'token_invalid' });
  });

  it('lets the watch win over a MongoDB read that started before it', async () => {
    expect(await revokedDuringItsRead()).toEqual({ ok: false, reason: 'token_invalid' });

    let active: (value: boolean) => void = () => undefined;
    findStoreActiveMock.mockReturnValueOnce(new Promise((resolve) => (active = resolve)));
    const other = cache.authenticate('pxt_other');
    await tick();
    watch.put(AuthBucket.storeKey('store-1'), { active: false });
    await tick();
    active(true);
    expect(await other).toEqual({ ok: false, reason: 'store_inactive' });
  });

  it('after a NATS reconnection, whose feed may have missed changes, reads tokens and stores again', async () => {
    expect((await cache.authenticate(token)).ok).toBe(true);
    watch.reconnected();
    findStoreActiveMock.mockResolvedValueOnce(false);
    expect(await cache.authenticate(token)).toEqual({ ok: false, reason: 'store_inactive' });
    expect(findTokenMock).toHaveBeenCalledTimes(2);
  });

  it('writes revocations and activations to the bucket, and applies them here at once', async () => {
    expect((await cache.authenticate(token)).ok).toBe(true);
    await cache.storeActiveChanged('store-1', false);
    expect(kv.put).toHaveBeenCalledWith(AuthBucket.storeKey('store-1'), JSON.stringify({ active: false }));
    expect(await cache.authenticate(token)).toEqual({ ok: false, reason: 'store_inactive' });
    await cache.tokenRevoked(hashToken(token));
    expect(kv.put).toHaveBeenCalledWith(AuthBucket.tokenKey(hashToken(token)), JSON.stringify({ revoked: true }));
    expect(await cache.authenticate(token)).toEqual({ ok: false, reason: 'token_invalid' });
  });

  it('keeps at most maxTokens tokens, dropping the oldest', async () => {
    for (const t of ['pxt_1', 'pxt_2', 'pxt_3']) await cache.authenticate(t);
    findTokenMock.mockClear();
    await cache.authenticate('pxt_3');
    expect(findTokenMock).not.toHaveBeenCalled();
    await cache.authenticate('pxt_1');
    expect(findTokenMock).toHaveBeenCalledTimes(1);
  });
});

describe('AuthCache negative cache', () => {
  it('asks MongoDB once for an unknown token, then answers it from memory', async () => {
    findTokenMock.mockResolvedValue(null);
    for (let i = 0; i < 5; i++) {
      expect(await cache.authenticate('pxt_unknown')).toEqual({ ok: false, reason: 'token_invalid' });
    }
    expect(findTokenMock).toHaveBeenCalledTimes(1);
    expect(cache.fromMemory(hashToken('pxt_unknown'))).toEqual({ ok: false, reason: 'token_invalid' });
  });

  it('forgets an unknown token as soon as the bucket says it was issued', async () => {
    findTokenMock.mockResolvedValueOnce(null);
    expect((await cache.authenticate(token)).ok).toBe(false);
    watch.put(AuthBucket.tokenKey(hashToken(token)), { issued: true });
    await tick();
    expect(await cache.authenticate(token)).toEqual({ ok: true, storeId: 'store-1', livemode: false });
    expect(findTokenMock).toHaveBeenCalledTimes(2);
  });

  it('does not remember as unknown a token issued while it was being read', async () => {
    let answer: (value: null) => void = () => undefined;
    findTokenMock.mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    const pending = cache.authenticate(token);
    await cache.tokenIssued(hashToken(token));
    expect(kv.put).toHaveBeenCalledWith(AuthBucket.tokenKey(hashToken(token)), JSON.stringify({ issued: true }));
    answer(null);
    expect((await pending).ok).toBe(false);
    expect(await cache.authenticate(token)).toEqual({ ok: true, storeId: 'store-1', livemode: false });
  });

  it('knows the hashes the bucket says were issued, until they are revoked', async () => {
    const tokenHash = hashToken('pxt_new');
    expect(cache.wasIssued(tokenHash)).toBe(false);
    watch.put(AuthBucket.tokenKey(tokenHash), { issued: true });
    await tick();
    expect(cache.wasIssued(tokenHash)).toBe(true);
    expect(findTokenMock).not.toHaveBeenCalled();
    watch.put(AuthBucket.tokenKey(tokenHash), { revoked: true });
    await tick();
    expect(cache.wasIssued(tokenHash)).toBe(false);
  });

  it('keeps at most maxUnknown unknown tokens', async () => {
    findTokenMock.mockResolvedValue(null);
    for (const t of ['pxt_u1', 'pxt_u2', 'pxt_u3']) await cache.authenticate(t);
    expect(cache.fromMemory(hashToken('pxt_u1'))).toBeNull();
    expect(cache.fromMemory(hashToken('pxt_u3'))).toEqual({ ok: false, reason: 'token_invalid' });
  });

  it('answers from memory only what it knows: a known token and its store', async () => {
    expect(cache.fromMemory(hashToken(token))).toBeNull();
    await cache.authenticate(token);
    expect(cache.fromMemory(hashToken(token))).toEqual({ ok: true, storeId: 'store-1', livemode: false });
  });
});

describe('AuthCache revocations', () => {
  it('keeps a revoked token refused after the revocation itself is forgotten', async () => {
    expect((await revokedDuringItsRead()).ok).toBe(false);
    // The stale read kept nothing: forgetting the revocation leaves the database to refuse it.
    findTokenMock.mockResolvedValueOnce({ ...record, revokedAt: new Date() });
    const bounded = new AuthCache(kv, watch, records, logger, { ...DEFAULT_AUTH_CACHE_LIMITS, maxRevoked: 1 });
    await bounded.tokenRevoked(hashToken('pxt_a'));
    await bounded.tokenRevoked(hashToken(token));
    await bounded.tokenRevoked(hashToken('pxt_b'));
    expect(bounded.fromMemory(hashToken(token))).toBeNull();
    expect(await bounded.authenticate(token)).toEqual({ ok: false, reason: 'token_invalid' });
  });
});

describe('AuthCache.authenticateHash (dashboard sessions hold the hash, not the token)', () => {
  it('answers by the hash as it answers by the token, and follows a revocation and a deactivation', async () => {
    const tokenHash = hashToken(token);
    expect(await cache.authenticateHash(tokenHash)).toEqual({ ok: true, storeId: 'store-1', livemode: false });

    watch.put(AuthBucket.storeKey('store-1'), { active: false });
    await tick();
    expect(await cache.authenticateHash(tokenHash)).toEqual({ ok: false, reason: 'store_inactive' });

    watch.put(AuthBucket.storeKey('store-1'), { active: true });
    await tick();
    expect((await cache.authenticateHash(tokenHash)).ok).toBe(true);
    watch.put(AuthBucket.tokenKey(tokenHash), { revoked: true });
    await tick();
    expect(await cache.authenticateHash(tokenHash)).toEqual({ ok: false, reason: 'token_invalid' });
  });

  it('refuses what is not a SHA-256 hex digest without asking the database', async () => {
    for (const bad of ['', token, 'AB'.repeat(32), `${hashToken(token)}0`]) {
      expect(await cache.authenticateHash(bad)).toEqual({ ok: false, reason: 'token_invalid' });
    }
    expect(findTokenMock).not.toHaveBeenCalled();
  });
});

describe('AuthCache ended dashboard sessions', () => {
  it('ends a session here at once and in the bucket, and learns one ended elsewhere from the watch', async () => {
    const until = Date.now() + 60_000;
    expect(cache.isSessionEnded('here')).toBe(false);
    await cache.sessionEnded('here', until);
    expect(cache.isSessionEnded('here')).toBe(true);
    expect(kv.put).toHaveBeenCalledWith(AuthBucket.sessionKey('here'), JSON.stringify({ endedUntil: until }));

    watch.put(AuthBucket.sessionKey('elsewhere'), { endedUntil: until });
    await tick();
    expect(cache.isSessionEnded('elsewhere')).toBe(true);
    // A session past its expiry is refused by its signature check: the fact is not kept.
    watch.put(AuthBucket.sessionKey('long-gone'), { endedUntil: Date.now() - 1 });
    await tick();
    expect(cache.isSessionEnded('long-gone')).toBe(false);
  });
});
