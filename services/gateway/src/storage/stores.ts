import { randomBytes, randomUUID } from 'node:crypto';
import type { Sealer } from '@pix/runtime';
import { StoreModel, type SecretEntry, type StoreDoc } from './records';
import { StoreNotFound, type Tokens } from './tokens';

/** A Standard Webhooks signing secret: whsec_ + base64 of 24 random bytes. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** How long a replaced webhook secret keeps signing deliveries, so merchants can switch without a gap. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Rotations racing on one store retry a few times, then fail rather than spin. */
const ROTATION_TRIES = 5;
/** Stores read per page by a re-seal. */
const RESEAL_PAGE = 100;

type Secrets = Pick<StoreDoc, 'webhookSecrets'>;

/** What a sealed secret is bound to: its store, so a value copied onto another store does not open. */
function sealingContext(storeId: string): string {
  return `stores/${storeId}/webhookSecrets`;
}

/**
 * The condition that the store's secrets are still those read: the newest entry, unique as sealed
 * (a fresh IV) or in clear, changes with every rotation and re-seal.
 */
function unchangedSecrets(entries: readonly SecretEntry[]): Record<string, unknown> {
  const [first] = entries;
  if (!first) return { 'webhookSecrets.0': { $exists: false } };
  return first.sealed ? { 'webhookSecrets.0.sealed': first.sealed } : { 'webhookSecrets.0.secret': first.secret };
}

/** The merchants' stores: whether each is active, its name, its webhook signing secrets (sealed at rest). */
export class Stores {
  constructor(
    private readonly tokens: Tokens,
    private readonly sealer: Sealer,
  ) {}

  private sealed(storeId: string, secret: string, createdAt: Date, expiresAt: Date | null): SecretEntry {
    return { sealed: this.sealer.seal(secret, sealingContext(storeId)), createdAt, expiresAt };
  }

  private opened(storeId: string, entry: SecretEntry): string {
    if (entry.sealed) return this.sealer.open(entry.sealed, sealingContext(storeId));
    if (entry.secret) return entry.secret;
    throw new Error(`a webhook secret of store ${storeId} holds no value`);
  }

  /** A new active store with its first token and webhook secret. */
  async create(name: string): Promise<{ storeId: string; token: string; webhookSecret: string }> {
    const storeId = randomUUID();
    const webhookSecret = newWebhookSecret();
    const now = new Date();
    await StoreModel.create({
      _id: storeId,
      name,
      active: true,
      webhookSecrets: [this.sealed(storeId, webhookSecret, now, null)],
      createdAt: now,
    });
    const { token } = await this.tokens.issue(storeId);
    return { storeId, token, webhookSecret };
  }

  async setActive(storeId: string, active: boolean): Promise<void> {
    const result = await StoreModel.updateOne({ _id: { $eq: storeId } }, { $set: { active } });
    if (result.matchedCount === 0) throw new StoreNotFound(storeId);
  }

  /** Whether a store is active; null when it does not exist. */
  async isActive(storeId: string): Promise<boolean | null> {
    const store = await StoreModel.findById(storeId).select({ active: 1 }).lean<Pick<StoreDoc, 'active'>>();
    return store ? store.active : null;
  }

  /** A store's name; null when it does not exist. */
  async name(storeId: string): Promise<string | null> {
    const store = await StoreModel.findById(storeId).select({ name: 1 }).lean<Pick<StoreDoc, 'name'>>();
    return store ? store.name : null;
  }

  /** The secrets deliveries of a store are signed with: every one not yet expired, opened. */
  async webhookSecrets(storeId: string, now = new Date()): Promise<string[]> {
    const store = await StoreModel.findById(storeId).select({ webhookSecrets: 1 }).lean<Secrets>();
    if (!store) throw new StoreNotFound(storeId);
    return store.webhookSecrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => this.opened(storeId, s));
  }

  /**
   * Gives the store a new webhook secret. Secrets still in use without an expiry get one 24 hours
   * away, so deliveries carry both signatures meanwhile; expired ones are dropped, and the kept
   * ones are written sealed under the current key (a clear one from before sealing included). The
   * update is conditional on the secrets read, so two rotations at once cannot lose one another's.
   */
  async rotateWebhookSecret(storeId: string, now = new Date()): Promise<string> {
    for (let tries = 0; tries < ROTATION_TRIES; tries++) {
      const store = await StoreModel.findById(storeId).select({ webhookSecrets: 1 }).lean<Secrets>();
      if (!store) throw new StoreNotFound(storeId);
      const webhookSecret = newWebhookSecret();
      const overlapEnds = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS);
      const kept = this.resealed(storeId, store.webhookSecrets, now).map((s) => ({
        ...s,
        expiresAt: s.expiresAt ?? overlapEnds,
      }));
      const result = await StoreModel.updateOne(
        { _id: { $eq: storeId }, ...unchangedSecrets(store.webhookSecrets) },
        { $set: { webhookSecrets: [this.sealed(storeId, webhookSecret, now, null), ...kept] } },
      );
      if (result.modifiedCount === 1) return webhookSecret;
    }
    throw new Error(`webhook secret of store ${storeId} changed under ${ROTATION_TRIES} rotations in a row`);
  }

  /**
   * Seals again, under the current key, every store's secrets that are in clear or under an older
   * key (after SECRETS_KEYS gained a new first key), and drops expired ones; a store rotated
   * meanwhile is left as its rotation wrote it. Pages through the stores by _id; idempotent.
   */
  async resealWebhookSecrets(now = new Date()): Promise<{ stores: number; resealed: number }> {
    let stores = 0;
    let resealed = 0;
    for (let after = ''; ;) {
      const page = await StoreModel.find({ _id: { $gt: after } })
        .sort({ _id: 1 })
        .limit(RESEAL_PAGE)
        .select({ webhookSecrets: 1 })
        .lean<(Secrets & { _id: string })[]>();
      for (const store of page) {
        stores++;
        const current = store.webhookSecrets.every(
          (s) => s.sealed && this.sealer.isCurrent(s.sealed) && (!s.expiresAt || s.expiresAt > now),
        );
        if (current) continue;
        const result = await StoreModel.updateOne(
          { _id: { $eq: store._id }, ...unchangedSecrets(store.webhookSecrets) },
          { $set: { webhookSecrets: this.resealed(store._id, store.webhookSecrets, now) } },
        );
        resealed += result.modifiedCount;
      }
      const last = page[page.length - 1];
      if (!last || page.length < RESEAL_PAGE) return { stores, resealed };
      after = last._id;
    }
  }

  /** The unexpired entries, each sealed under the current key (kept as it is when it already is). */
  private resealed(storeId: string, entries: readonly SecretEntry[], now: Date): SecretEntry[] {
    return entries
      .filter((s) => !s.expiresAt || s.expiresAt > now)
      .map((s) =>
        s.sealed && this.sealer.isCurrent(s.sealed)
          ? { sealed: s.sealed, createdAt: s.createdAt, expiresAt: s.expiresAt }
          : this.sealed(storeId, this.opened(storeId, s), s.createdAt, s.expiresAt),
      );
  }
}
