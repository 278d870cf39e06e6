import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { CreatePaymentInput } from '@pix/contracts';
import { isDuplicateKey, sha256Hex } from '@pix/runtime';

/** Stripe's window: a key is remembered for 24 hours, then it may be used again. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_CHARS = 255;

interface IdempotencyKeyDoc {
  /** `${storeId}:${sha256Hex(key)}`: keys are per store, and the key itself is not stored. */
  _id: string;
  /** SHA-256 of the validated, canonical request body. */
  requestHash: string;
  /** The payment this key creates, chosen here so that every repeat asks payments for the same id. */
  paymentId: string;
  createdAt: Date;
  /** The end of the window; the database forgets the key after it (a TTL index). */
  expiresAt: Date;
}

const IdempotencyKeySchema = new Schema<IdempotencyKeyDoc>(
  {
    _id: { type: String, required: true },
    requestHash: { type: String, required: true },
    paymentId: { type: String, required: true },
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
function keys() {
  return IdempotencyKeyModel.collection as unknown as mongoose.mongo.Collection<IdempotencyKeyDoc>;
}

export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= MAX_KEY_CHARS;
}

/** The same request, whatever the JSON's key order or the client's absent-vs-null choice. */
function requestHashOf(input: CreatePaymentInput): string {
  return sha256Hex(JSON.stringify([input.amountCents, input.email, input.observation, input.webhookUrl]));
}

export type Claim = { ok: true; paymentId: string } | { ok: false };

/**
 * The payment id an Idempotency-Key stands for. The first request inserts the key (the unique _id
 * decides among concurrent ones): one command. A repeat finds it taken and reads it: with the same
 * body it gets the same payment id, with another body it is refused ({ok: false}). A key whose
 * window has passed is free again.
 */
export async function claimPaymentId(
  storeId: string,
  key: string,
  input: CreatePaymentInput,
  now = new Date(),
): Promise<Claim> {
  const _id = `${storeId}:${sha256Hex(key)}`;
  const requestHash = requestHashOf(input);
  const oldest = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  for (;;) {
    const paymentId = randomUUID();
    try {
      await keys().insertOne({
        _id,
        requestHash,
        paymentId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
      });
      return { ok: true, paymentId };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const existing = await keys().findOne({ _id });
    if (existing && existing.createdAt > oldest) {
      return existing.requestHash === requestHash ? { ok: true, paymentId: existing.paymentId } : { ok: false };
    }
    // Expired (or removed meanwhile): free again; the createdAt condition keeps a concurrent fresh claim.
    if (existing) await keys().deleteOne({ _id: { $eq: _id }, createdAt: { $eq: existing.createdAt } });
  }
}
