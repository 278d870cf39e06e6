import { randomUUID } from 'node:crypto';
import type { CreatePaymentInput } from '@pix/contracts';
import { isDuplicateKey, sha256Hex } from '@pix/runtime';
import { idempotencyKeys } from './records';

/** Stripe's window: a key is remembered for 24 hours, then it may be used again. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_CHARS = 255;

export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= MAX_KEY_CHARS;
}

/** The same request, whatever the JSON's key order or the client's absent-vs-null choice. */
function requestHashOf(input: CreatePaymentInput): string {
  return sha256Hex(JSON.stringify([input.amountCents, input.email, input.observation, input.webhookUrl]));
}

export type Claim = { ok: true; paymentId: string } | { ok: false };

/** The Idempotency-Keys of payment creates, per store. */
export class IdempotencyKeys {
  /**
   * The payment id an Idempotency-Key stands for. The first request inserts the key (the unique _id
   * decides among concurrent ones): one command. A repeat finds it taken and reads it: with the same
   * body it gets the same payment id, with another body it is refused ({ok: false}). A key whose
   * window has passed is free again.
   */
  async claim(storeId: string, key: string, input: CreatePaymentInput, now = new Date()): Promise<Claim> {
    const _id = `${storeId}:${sha256Hex(key)}`;
    const requestHash = requestHashOf(input);
    const oldest = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
    for (;;) {
      const paymentId = randomUUID();
      try {
        await idempotencyKeys().insertOne({
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
      const existing = await idempotencyKeys().findOne({ _id });
      if (existing && existing.createdAt > oldest) {
        return existing.requestHash === requestHash ? { ok: true, paymentId: existing.paymentId } : { ok: false };
      }
      // Expired (or removed meanwhile): free again; the createdAt condition keeps a concurrent fresh claim.
      if (existing) await idempotencyKeys().deleteOne({ _id: { $eq: _id }, createdAt: { $eq: existing.createdAt } });
    }
  }
}
