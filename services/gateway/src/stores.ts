import { randomBytes, randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import { sha256Hex } from '@pix/runtime';

interface StoreDoc {
  _id: string;
  name: string;
  active: boolean;
  /** Standard Webhooks secrets (whsec_...), newest first. */
  webhookSecrets: { secret: string; createdAt: Date; expiresAt: Date | null }[];
  createdAt: Date;
}

interface TokenDoc {
  /** SHA-256 of the token, hex: the token itself is never stored. */
  _id: string;
  storeId: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export const StoreModel = mongoose.model<StoreDoc>(
  'Store',
  new Schema<StoreDoc>(
    {
      _id: { type: String, required: true },
      name: { type: String, required: true },
      active: { type: Boolean, required: true },
      webhookSecrets: [{ _id: false, secret: String, createdAt: Date, expiresAt: { type: Date, default: null } }],
      createdAt: { type: Date, required: true },
    },
    { collection: 'stores', versionKey: false },
  ),
);

export const TokenModel = mongoose.model<TokenDoc>(
  'Token',
  new Schema<TokenDoc>(
    {
      _id: { type: String, required: true },
      storeId: { type: String, required: true, index: true },
      createdAt: { type: Date, required: true },
      expiresAt: { type: Date, default: null },
      revokedAt: { type: Date, default: null },
    },
    { collection: 'tokens', versionKey: false },
  ),
);

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** A bearer token: 256 random bits, URL-safe. */
function newToken(): string {
  return `pxt_${randomBytes(32).toString('base64url')}`;
}

/** A Standard Webhooks signing secret: whsec_ + base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export class StoreNotFound extends Error {}

export async function createStore(name: string): Promise<{ storeId: string; token: string; webhookSecret: string }> {
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
  const { token } = await issueToken(storeId);
  return { storeId, token, webhookSecret };
}

export async function setStoreActive(storeId: string, active: boolean): Promise<void> {
  const result = await StoreModel.updateOne({ _id: { $eq: storeId } }, { $set: { active } });
  if (result.matchedCount === 0) throw new StoreNotFound(storeId);
}

export async function issueToken(
  storeId: string,
  expiresInSeconds?: number,
): Promise<{ token: string; expiresAt: string | null }> {
  if (!(await StoreModel.exists({ _id: { $eq: storeId } }))) throw new StoreNotFound(storeId);
  const token = newToken();
  const now = new Date();
  const expiresAt = expiresInSeconds ? new Date(now.getTime() + expiresInSeconds * 1000) : null;
  await TokenModel.create({ _id: hashToken(token), storeId, createdAt: now, expiresAt, revokedAt: null });
  return { token, expiresAt: expiresAt?.toISOString() ?? null };
}

/** Revokes a token; its hash when it existed, null otherwise. */
export async function revokeToken(token: string): Promise<string | null> {
  const tokenHash = hashToken(token);
  const result = await TokenModel.updateOne({ _id: { $eq: tokenHash } }, { $set: { revokedAt: new Date() } });
  return result.matchedCount === 1 ? tokenHash : null;
}

/** A token's record by its hash; null when unknown. */
export function findToken(tokenHash: string): Promise<Pick<TokenDoc, 'storeId' | 'expiresAt' | 'revokedAt'> | null> {
  return TokenModel.findById(tokenHash)
    .select({ storeId: 1, expiresAt: 1, revokedAt: 1 })
    .lean<Pick<TokenDoc, 'storeId' | 'expiresAt' | 'revokedAt'>>()
    .exec();
}

/** Whether a store is active; null when it does not exist. */
export async function findStoreActive(storeId: string): Promise<boolean | null> {
  const store = await StoreModel.findById(storeId).select({ active: 1 }).lean<Pick<StoreDoc, 'active'>>();
  return store ? store.active : null;
}

/** The secrets deliveries of a store are signed with: every one not yet expired. */
export async function webhookSecretsOf(storeId: string, now = new Date()): Promise<string[]> {
  const store = await StoreModel.findById(storeId)
    .select({ webhookSecrets: 1 })
    .lean<Pick<StoreDoc, 'webhookSecrets'>>();
  if (!store) throw new StoreNotFound(storeId);
  return store.webhookSecrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => s.secret);
}

/** How long a replaced webhook secret keeps signing deliveries, so merchants can switch without a gap. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Rotations racing on one store retry a few times, then fail rather than spin. */
const ROTATION_TRIES = 5;

/**
 * Gives the store a new webhook secret. Secrets still in use without an expiry get one 24 hours
 * away, so deliveries carry both signatures meanwhile; expired ones are dropped. The update is
 * conditional on the secrets read, so two rotations at once cannot lose one another's secret.
 */
export async function rotateWebhookSecret(storeId: string, now = new Date()): Promise<string> {
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
