import { timingSafeEqual } from 'node:crypto';
import { Kvm, type KV } from '@nats-io/kv';
import type { LRUCache } from 'lru-cache';
import type { NatsConnection } from '@nats-io/transport-node';
import { AuthBucket, AuthSessionStateSchema, AuthStoreStateSchema, AuthTokenStateSchema } from '@pix/contracts';
import { retrySetup } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { AuthBucketFeed, type AuthBucketChanges, type AuthBucketEntry } from './auth-bucket-feed';
import { boundedCache } from './bounded-cache';
import { hashToken, type TokenRecord } from './storage';

/** What the cache reads from the database on a miss (GatewayStorage's tokens and stores). */
export interface AuthRecords {
  token(tokenHash: string): Promise<TokenRecord | null>;
  storeActive(storeId: string): Promise<boolean | null>;
}

/** Who a valid token speaks for: its store, and its mode (a token sees only its own mode's data). */
export type AuthResult =
  { ok: true; storeId: string; livemode: boolean } | { ok: false; reason: 'token_invalid' | 'store_inactive' };

interface CachedToken {
  digest: Buffer;
  storeId: string;
  livemode: boolean;
  expiresAt: number | null;
}

/**
 * How long a revocation is kept in memory. It guards against a database read that began before the
 * revocation and returns the token as it was; past a few seconds no such read is still running,
 * and the database itself refuses the token (revokedAt), so forgetting it costs one read at most.
 */
const REVOKED_TTL_MS = 10 * 60_000;

export interface AuthCacheLimits {
  /** Known tokens kept (the oldest forgotten first). */
  maxTokens: number;
  /** Unknown token hashes kept, each for negativeTtlMs: a repeat of one costs no database read. */
  maxUnknown: number;
  negativeTtlMs: number;
  /** Revocations kept, each for REVOKED_TTL_MS. */
  maxRevoked: number;
  /** Hashes of tokens the bucket said were issued (wasIssued), kept without a time limit. */
  maxIssued: number;
}

export const DEFAULT_AUTH_CACHE_LIMITS: AuthCacheLimits = {
  maxTokens: 100_000,
  maxUnknown: 100_000,
  negativeTtlMs: 60_000,
  maxRevoked: 100_000,
  maxIssued: 1_000_000,
};

/**
 * Who a bearer token speaks for, answered from memory for a known token. MongoDB is asked once per
 * token (and once per store); an unknown token is asked once too, then remembered as unknown for a
 * while (the negative cache), so repeating it costs nothing. Revocations, issues and store
 * (de)activations reach every replica through the AUTH KV bucket's feed (auth-bucket-feed.ts),
 * which the admin handlers write right after MongoDB. Facts from the bucket win over what a concurrent MongoDB read
 * returned, so a read that started before a revocation cannot bring the token back, and an issue
 * clears the token's negative entry at once. Every map is bounded.
 */
export class AuthCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly revoked: LRUCache<string, true>;
  private readonly unknown: LRUCache<string, true>;
  /** Bumped by every issue fact: a read that saw one begin meanwhile does not cache "unknown". */
  private issues = 0;
  /**
   * Hashes of the tokens issued (not since revoked), as the bucket tells them: not a proof of
   * validity (only the database gives that), but what makes a token worth a read when its address
   * is throttled. A random guess is never among them.
   */
  private readonly issued: LRUCache<string, true>;
  private readonly storeActive = new Map<string, boolean>();
  /** Dashboard sessions ended before their expiry, with that expiry (they matter only until then). */
  private readonly endedSessions = new Map<string, number>();

  constructor(
    private readonly kv: KV,
    private readonly changes: AuthBucketChanges,
    private readonly records: AuthRecords,
    private readonly logger: Logger,
    private readonly limits: AuthCacheLimits = DEFAULT_AUTH_CACHE_LIMITS,
  ) {
    this.revoked = boundedCache(limits.maxRevoked, { ttl: REVOKED_TTL_MS });
    this.unknown = boundedCache(limits.maxUnknown, { ttl: limits.negativeTtlMs });
    this.issued = boundedCache(limits.maxIssued);
  }

  /** Opens the bucket, which the provisioning step creates (a replica started before it waits for it). */
  static async open(
    nc: NatsConnection,
    records: AuthRecords,
    logger: Logger,
    limits: Partial<AuthCacheLimits> = {},
  ): Promise<AuthCache> {
    const kv = await retrySetup(
      'auth bucket',
      async () => {
        const bucket = await new Kvm(nc).open(AuthBucket.name);
        await bucket.status(); // opening checks nothing; this fails while the bucket is missing
        return bucket;
      },
      logger,
    );
    const changes = new AuthBucketFeed(nc, logger);
    return new AuthCache(kv, changes, records, logger, { ...DEFAULT_AUTH_CACHE_LIMITS, ...limits });
  }

  /** Starts following the bucket; resolves once its current entries are applied. */
  async start(): Promise<void> {
    await this.changes.follow(
      () => this.forgetLearned(),
      (entry) => this.apply(entry),
    );
  }

  stop(): Promise<void> {
    this.changes.stop();
    return Promise.resolve();
  }

  async tokenRevoked(tokenHash: string): Promise<void> {
    this.applyRevocation(tokenHash);
    await this.kv.put(AuthBucket.tokenKey(tokenHash), JSON.stringify({ revoked: true }));
  }

  /**
   * A token was issued: every replica forgets having found its hash unknown, and learns that the
   * hash is worth a read even from a throttled address. Best effort: if the bucket cannot be
   * written, a replica that had the hash as unknown refuses it for at most the negative cache's
   * time-to-live.
   */
  async tokenIssued(tokenHash: string): Promise<void> {
    this.applyIssue(tokenHash);
    try {
      await this.kv.put(AuthBucket.tokenKey(tokenHash), JSON.stringify({ issued: true }));
    } catch (err) {
      this.logger.warn({ err }, 'auth bucket: the issue of a token was not announced');
    }
  }

  async storeActiveChanged(storeId: string, active: boolean): Promise<void> {
    this.storeActive.set(storeId, active);
    await this.kv.put(AuthBucket.storeKey(storeId), JSON.stringify({ active }));
  }

  /**
   * Ends a dashboard session everywhere (Sair): a copy of its cookie is refused by every replica
   * within the same second as a revocation. Kept in memory until the session would have expired.
   */
  async sessionEnded(sessionId: string, expiresAt: number): Promise<void> {
    this.rememberEndedSession(sessionId, expiresAt);
    await this.kv.put(AuthBucket.sessionKey(sessionId), JSON.stringify({ endedUntil: expiresAt }));
  }

  isSessionEnded(sessionId: string): boolean {
    return this.endedSessions.has(sessionId);
  }

  /** Past its expiry a session's cookie is refused by its signature check alone: the fact can go. */
  private rememberEndedSession(sessionId: string, expiresAt: number, now = Date.now()): void {
    if (expiresAt <= now) return;
    this.endedSessions.set(sessionId, expiresAt);
    if (this.endedSessions.size % 1000 === 0) {
      for (const [id, until] of this.endedSessions) if (until <= now) this.endedSessions.delete(id);
    }
  }

  async authenticate(token: string, now = Date.now()): Promise<AuthResult> {
    return this.authenticateHash(hashToken(token), now);
  }

  /**
   * The same check by the token's hash: what a dashboard session holds instead of the token, so a
   * revocation or a deactivation ends a session exactly when it ends the token's API access.
   */
  async authenticateHash(tokenHash: string, now = Date.now()): Promise<AuthResult> {
    const known = this.fromMemory(tokenHash, now);
    if (known) return known;
    if (!/^[0-9a-f]{64}$/.test(tokenHash)) return { ok: false, reason: 'token_invalid' };
    const cached = this.tokens.get(tokenHash) ?? (await this.loadToken(tokenHash));
    return this.judge(tokenHash, cached, now) ?? this.withStore(cached!, await this.loadStore(cached!.storeId));
  }

  /**
   * The answer memory alone gives, or null when only the database can tell (a token this replica
   * has not met, or whose store it does not know): what the door asks of an address it throttles.
   */
  fromMemory(tokenHash: string, now = Date.now()): AuthResult | null {
    if (this.revoked.has(tokenHash) || this.unknown.has(tokenHash)) return { ok: false, reason: 'token_invalid' };
    const cached = this.tokens.get(tokenHash);
    if (!cached) return null;
    const verdict = this.judge(tokenHash, cached, now);
    if (verdict) return verdict;
    const active = this.storeActive.get(cached.storeId);
    return active === undefined ? null : this.withStore(cached, active);
  }

  /**
   * Whether the bucket said this token was issued (and not revoked since): a throttled address's
   * token that memory cannot judge is read from the database only then (auth.ts).
   */
  wasIssued(tokenHash: string): boolean {
    return this.issued.has(tokenHash);
  }

  /** A refusal from the token alone, or null when it passes (its store is judged next). */
  private judge(tokenHash: string, cached: CachedToken | null | undefined, now: number): AuthResult | null {
    // The map is keyed by a SHA-256 digest, whose timing reveals nothing about the token; the final
    // equality is still checked in constant time.
    const digest = Buffer.from(tokenHash, 'hex');
    if (!cached || !timingSafeEqual(cached.digest, digest) || this.revoked.has(tokenHash)) {
      return { ok: false, reason: 'token_invalid' };
    }
    if (cached.expiresAt !== null && cached.expiresAt <= now) return { ok: false, reason: 'token_invalid' };
    return null;
  }

  private withStore(cached: CachedToken, active: boolean | null): AuthResult {
    if (active === null) return { ok: false, reason: 'token_invalid' };
    if (!active) return { ok: false, reason: 'store_inactive' };
    return { ok: true, storeId: cached.storeId, livemode: cached.livemode };
  }

  private async loadToken(tokenHash: string): Promise<CachedToken | null> {
    const issuesBefore = this.issues;
    const record = await this.records.token(tokenHash);
    if (!record) {
      if (this.issues === issuesBefore) this.unknown.set(tokenHash, true);
      return null;
    }
    if (record.revokedAt) {
      this.applyRevocation(tokenHash);
      return null;
    }
    // Revoked while the read was under way: the bucket's word is newer, and the token is not kept,
    // so it stays refused after the revocation itself is forgotten.
    if (this.revoked.has(tokenHash)) return null;
    const entry = {
      digest: Buffer.from(tokenHash, 'hex'),
      storeId: record.storeId,
      // Tokens issued before modes have none: they are test tokens.
      livemode: record.livemode === true,
      expiresAt: record.expiresAt?.getTime() ?? null,
    };
    if (this.tokens.size >= this.limits.maxTokens) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.tokens.keys().next().value;
      if (oldest !== undefined) this.tokens.delete(oldest);
    }
    this.tokens.set(tokenHash, entry);
    return entry;
  }

  private async loadStore(storeId: string): Promise<boolean | null> {
    const active = await this.records.storeActive(storeId);
    if (active === null) return null;
    // The bucket may have spoken while MongoDB was read: its word is newer.
    if (!this.storeActive.has(storeId)) this.storeActive.set(storeId, active);
    return this.storeActive.get(storeId) ?? active;
  }

  private applyRevocation(tokenHash: string): void {
    this.revoked.set(tokenHash, true);
    this.tokens.delete(tokenHash);
    this.issued.delete(tokenHash);
  }

  private applyIssue(tokenHash: string): void {
    this.issues++;
    this.unknown.delete(tokenHash);
    this.issued.set(tokenHash, true);
  }

  /**
   * What may have changed unseen (after a NATS reconnection, whose feed messages are lost): the
   * tokens and stores read from the database, which are read again, and the negative cache. The
   * revocations and ended sessions stay (they are final); the bucket's entries are applied again
   * right after.
   */
  private forgetLearned(): void {
    this.tokens.clear();
    this.storeActive.clear();
    this.unknown.clear();
  }

  private apply(entry: AuthBucketEntry): void {
    if (entry.deleted) return;
    const [kind, id] = [entry.key.slice(0, entry.key.indexOf('.')), entry.key.slice(entry.key.indexOf('.') + 1)];
    try {
      if (kind === 'token') {
        const state = AuthTokenStateSchema.safeParse(entry.json());
        if (state.success && 'revoked' in state.data) this.applyRevocation(id);
        if (state.success && 'issued' in state.data) this.applyIssue(id);
      }
      if (kind === 'store') {
        const state = AuthStoreStateSchema.safeParse(entry.json());
        if (state.success) this.storeActive.set(id, state.data.active);
      }
      if (kind === 'session') {
        const state = AuthSessionStateSchema.safeParse(entry.json());
        if (state.success) this.rememberEndedSession(id, state.data.endedUntil);
      }
    } catch (err) {
      this.logger.warn({ err, key: entry.key }, 'unreadable auth bucket entry ignored');
    }
  }
}
