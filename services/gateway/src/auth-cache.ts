import { timingSafeEqual } from 'node:crypto';
import { Kvm, type KV, type KvWatchEntry } from '@nats-io/kv';
import type { NatsConnection, QueuedIterator } from '@nats-io/transport-node';
import { AuthBucket, AuthSessionStateSchema, AuthStoreStateSchema, AuthTokenStateSchema } from '@pix/contracts';
import { retrySetup } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { hashToken, type TokenRecord } from './storage';

/** What the cache reads from the database on a miss (GatewayStorage's tokens and stores). */
export interface AuthRecords {
  token(tokenHash: string): Promise<TokenRecord | null>;
  storeActive(storeId: string): Promise<boolean | null>;
}

export type AuthResult = { ok: true; storeId: string } | { ok: false; reason: 'token_invalid' | 'store_inactive' };

interface CachedToken {
  digest: Buffer;
  storeId: string;
  expiresAt: number | null;
}

const RESTART_DELAY_MS = 500;

/**
 * Who a bearer token speaks for, answered from memory for a known token. MongoDB is asked once per
 * token (and once per store); revocations and store (de)activations reach every replica through a
 * watch on the AUTH KV bucket, which the admin handlers write right after MongoDB. Facts from the
 * bucket win over what a concurrent MongoDB read returned, so a read that started before a
 * revocation cannot bring the token back.
 */
export class AuthCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly revoked = new Set<string>();
  private readonly storeActive = new Map<string, boolean>();
  /** Dashboard sessions ended before their expiry, with that expiry (they matter only until then). */
  private readonly endedSessions = new Map<string, number>();
  private watcher: QueuedIterator<KvWatchEntry> | undefined;
  private lastRevision = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly kv: KV,
    private readonly records: AuthRecords,
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
    private readonly maxTokens: number,
  ) {}

  /** Opens the bucket, which the provisioning step creates (a replica started before it waits for it). */
  static async open(nc: NatsConnection, records: AuthRecords, logger: Logger, maxTokens = 100_000): Promise<AuthCache> {
    const kv = await retrySetup(
      'auth bucket',
      async () => {
        const bucket = await new Kvm(nc).open(AuthBucket.name);
        await bucket.status(); // opening checks nothing; this fails while the bucket is missing
        return bucket;
      },
      logger,
    );
    return new AuthCache(kv, records, nc, logger, maxTokens);
  }

  /** Starts watching the bucket; resolves once the first watch is in place. */
  async start(): Promise<void> {
    await this.openWatch();
    this.loop = this.watchForever();
    // After a reconnect the watch resumes from the last revision seen, so nothing written while
    // this replica was cut off is missed.
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type === 'reconnect') this.watcher?.stop();
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.stop();
    await this.loop;
  }

  async tokenRevoked(tokenHash: string): Promise<void> {
    this.applyRevocation(tokenHash);
    await this.kv.put(AuthBucket.tokenKey(tokenHash), JSON.stringify({ revoked: true }));
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
    if (!/^[0-9a-f]{64}$/.test(tokenHash)) return { ok: false, reason: 'token_invalid' };
    const cached = this.tokens.get(tokenHash) ?? (await this.loadToken(tokenHash));
    // The map is keyed by a SHA-256 digest, whose timing reveals nothing about the token; the final
    // equality is still checked in constant time.
    const digest = Buffer.from(tokenHash, 'hex');
    if (!cached || !timingSafeEqual(cached.digest, digest) || this.revoked.has(tokenHash)) {
      return { ok: false, reason: 'token_invalid' };
    }
    if (cached.expiresAt !== null && cached.expiresAt <= now) return { ok: false, reason: 'token_invalid' };
    const active = this.storeActive.get(cached.storeId) ?? (await this.loadStore(cached.storeId));
    if (active === null) return { ok: false, reason: 'token_invalid' };
    if (!active) return { ok: false, reason: 'store_inactive' };
    return { ok: true, storeId: cached.storeId };
  }

  private async loadToken(tokenHash: string): Promise<CachedToken | null> {
    const record = await this.records.token(tokenHash);
    if (!record) return null;
    if (record.revokedAt) {
      this.applyRevocation(tokenHash);
      return null;
    }
    const entry = {
      digest: Buffer.from(tokenHash, 'hex'),
      storeId: record.storeId,
      expiresAt: record.expiresAt?.getTime() ?? null,
    };
    if (this.tokens.size >= this.maxTokens) {
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
    this.revoked.add(tokenHash);
    this.tokens.delete(tokenHash);
  }

  private apply(entry: KvWatchEntry): void {
    this.lastRevision = entry.revision;
    if (entry.operation !== 'PUT') return;
    const [kind, id] = [entry.key.slice(0, entry.key.indexOf('.')), entry.key.slice(entry.key.indexOf('.') + 1)];
    try {
      if (kind === 'token' && AuthTokenStateSchema.safeParse(entry.json()).success) this.applyRevocation(id);
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

  private async openWatch(): Promise<void> {
    this.watcher = await this.kv.watch(this.lastRevision > 0 ? { resumeFromRevision: this.lastRevision + 1 } : {});
  }

  private async watchForever(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.watcher) await this.openWatch();
        for await (const entry of this.watcher ?? []) this.apply(entry);
      } catch (err) {
        this.logger.warn({ err }, 'auth bucket watch failed; restarting');
      }
      this.watcher = undefined;
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
    }
  }
}
