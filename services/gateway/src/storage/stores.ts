import { randomBytes, randomUUID } from 'node:crypto';
import { StoreModel, type StoreDoc } from './records';
import { StoreNotFound, type Tokens } from './tokens';

/** A Standard Webhooks signing secret: whsec_ + base64 of 24 random bytes. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** How long a replaced webhook secret keeps signing deliveries, so merchants can switch without a gap. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Rotations racing on one store retry a few times, then fail rather than spin. */
const ROTATION_TRIES = 5;

/** The merchants' stores: whether each is active, its name, its webhook signing secrets. */
export class Stores {
  constructor(private readonly tokens: Tokens) {}

  /** A new active store with its first token and webhook secret. */
  async create(name: string): Promise<{ storeId: string; token: string; webhookSecret: string }> {
    const storeId = randomUUID();
    const webhookSecret = newWebhookSecret();
    const now = new Date();
    await StoreModel.create({
      _id: storeId,
      name,
      active: true,
      webhookSecrets: [{ secret: webhookSecret, createdAt: now, expiresAt: null }],
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

  /** The secrets deliveries of a store are signed with: every one not yet expired. */
  async webhookSecrets(storeId: string, now = new Date()): Promise<string[]> {
    const store = await StoreModel.findById(storeId)
      .select({ webhookSecrets: 1 })
      .lean<Pick<StoreDoc, 'webhookSecrets'>>();
    if (!store) throw new StoreNotFound(storeId);
    return store.webhookSecrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => s.secret);
  }

  /**
   * Gives the store a new webhook secret. Secrets still in use without an expiry get one 24 hours
   * away, so deliveries carry both signatures meanwhile; expired ones are dropped. The update is
   * conditional on the secrets read, so two rotations at once cannot lose one another's secret.
   */
  async rotateWebhookSecret(storeId: string, now = new Date()): Promise<string> {
    for (let tries = 0; tries < ROTATION_TRIES; tries++) {
      const store = await StoreModel.findById(storeId)
        .select({ webhookSecrets: 1 })
        .lean<Pick<StoreDoc, 'webhookSecrets'>>();
      if (!store) throw new StoreNotFound(storeId);
      const webhookSecret = newWebhookSecret();
      const overlapEnds = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS);
      const kept = store.webhookSecrets
        .filter((s) => !s.expiresAt || s.expiresAt > now)
        .map((s) => ({ ...s, expiresAt: s.expiresAt ?? overlapEnds }));
      const result = await StoreModel.updateOne(
        { _id: { $eq: storeId }, 'webhookSecrets.0.secret': store.webhookSecrets[0]?.secret },
        { $set: { webhookSecrets: [{ secret: webhookSecret, createdAt: now, expiresAt: null }, ...kept] } },
      );
      if (result.modifiedCount === 1) return webhookSecret;
    }
    throw new Error(`webhook secret of store ${storeId} changed under ${ROTATION_TRIES} rotations in a row`);
  }
}
