import mongoose, { Schema } from 'mongoose';
import { driverCollection } from '@pix/runtime';

/**
 * What the gateway keeps in the database: stores, their API tokens (by hash) and Idempotency-Keys
 * (by hash). The models are this folder's own: the rest of the gateway reaches them through
 * GatewayStorage (eslint keeps mongoose out of it).
 */

export interface StoreDoc {
  _id: string;
  name: string;
  active: boolean;
  /** Standard Webhooks secrets (whsec_...) of test mode, newest first, sealed (SecretEntry). */
  webhookSecrets: SecretEntry[];
  /** Those of live mode; absent on a store created before modes until its first live rotation. */
  liveWebhookSecrets?: SecretEntry[];
  createdAt: Date;
}

/**
 * One webhook signing secret: `sealed` by the gateway's Sealer (AES-256-GCM, its key id inside,
 * bound to its store and `expiresAt`). Records written before sealing hold `secret` in clear
 * instead: still read, and sealed on the store's first read, next rotation or
 * `admin store reseal-secrets`.
 */
export interface SecretEntry {
  sealed?: string;
  secret?: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface TokenDoc {
  /** SHA-256 of the token, hex: the token itself is never stored. */
  _id: string;
  storeId: string;
  /** A live token (pxt_live_…); absent on the tokens issued before modes, which are test tokens. */
  livemode?: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface IdempotencyKeyDoc {
  /**
   * `${storeId}:${sha256Hex(key)}` for a create, `${storeId}:refund:${sha256Hex(key)}` for a refund:
   * keys are per store and operation, and the key itself is not stored.
   */
  _id: string;
  /** SHA-256 of the validated, canonical request. */
  requestHash: string;
  /** The payment or refund this key creates, chosen here so that every repeat asks payments for the same id. */
  resourceId?: string;
  /** What `resourceId` was called before refunds had keys (records of then are gone a day after). */
  paymentId?: string;
  createdAt: Date;
  /** The end of the window; the database forgets the key after it (a TTL index). */
  expiresAt: Date;
}

const SecretEntrySchema = new Schema<SecretEntry>(
  { sealed: String, secret: String, createdAt: Date, expiresAt: { type: Date, default: null } },
  { _id: false },
);

export const StoreModel = mongoose.model<StoreDoc>(
  'Store',
  new Schema<StoreDoc>(
    {
      _id: { type: String, required: true },
      name: { type: String, required: true },
      active: { type: Boolean, required: true },
      webhookSecrets: [SecretEntrySchema],
      liveWebhookSecrets: { type: [SecretEntrySchema], default: undefined },
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
      livemode: { type: Boolean },
      createdAt: { type: Date, required: true },
      expiresAt: { type: Date, default: null },
      revokedAt: { type: Date, default: null },
    },
    { collection: 'tokens', versionKey: false },
  ),
);

const IdempotencyKeySchema = new Schema<IdempotencyKeyDoc>(
  {
    _id: { type: String, required: true },
    requestHash: { type: String, required: true },
    resourceId: { type: String },
    paymentId: { type: String },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'idempotency_keys', versionKey: false, autoIndex: false },
);
// Until the TTL monitor removes a key (within a minute or so) the code ignores it once its window
// has passed, so how soon it goes does not matter.
IdempotencyKeySchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export const IdempotencyKeyModel = mongoose.model<IdempotencyKeyDoc>('IdempotencyKey', IdempotencyKeySchema);

/** The collection itself: a key is built whole here, so mongoose's casting would only cost time on every create. */
export function idempotencyKeys(): mongoose.mongo.Collection<IdempotencyKeyDoc> {
  return driverCollection(IdempotencyKeyModel);
}
