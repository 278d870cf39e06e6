import { randomUUID } from 'node:crypto';
import type { CreatePaymentInput, CreateRefundInput } from '@pix/contracts';
import { isDuplicateKey, sha256Hex } from '@pix/runtime';
import { idempotencyKeys } from './records';

/** Stripe's window: a key is remembered for 24 hours, then it may be used again. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_CHARS = 255;

export function isValidIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= MAX_KEY_CHARS;
}

/**
 * What a key names, per store and per operation: the same key on a create and on a refund names two
 * things. A create's request is its validated body; a refund's, its payment and its validated body.
 */
export type IdempotentRequest =
  | { operation: 'create'; input: CreatePaymentInput }
  | { operation: 'refund'; paymentId: string; input: CreateRefundInput };

/**
 * The key's record id and the request's hash: the same request whatever the JSON's key order or the
 * client's absent-vs-null choice. A create keeps the form it had before refunds (a key stays valid
 * across the change): no operation in the id, and expiresIn hashed only when given.
 */
function identify(storeId: string, key: string, request: IdempotentRequest): { _id: string; requestHash: string } {
  if (request.operation === 'create') {
    const { amountCents, email, observation, webhookUrl, expiresInSeconds } = request.input;
    const fields = [
      amountCents,
      email,
      observation,
      webhookUrl,
      ...(expiresInSeconds === null ? [] : [expiresInSeconds]),
    ];
    return { _id: `${storeId}:${sha256Hex(key)}`, requestHash: sha256Hex(JSON.stringify(fields)) };
  }
  const { amountCents, reason } = request.input;
  return {
    _id: `${storeId}:refund:${sha256Hex(key)}`,
    requestHash: sha256Hex(JSON.stringify([request.paymentId, amountCents, reason])),
  };
}

export type Claim = { ok: true; id: string } | { ok: false };

/** The Idempotency-Keys of creates and refunds, per store and operation. */
export class IdempotencyKeys {
  /**
   * The id (of the payment, or of the refund) an Idempotency-Key stands for. The first request
   * inserts the key (the unique _id decides among concurrent ones): one command. A repeat finds it
   * taken and reads it: with the same request it gets the same id, with another it is refused
   * ({ok: false}). A key whose window has passed is free again.
   */
  async claim(storeId: string, key: string, request: IdempotentRequest, now = new Date()): Promise<Claim> {
    const { _id, requestHash } = identify(storeId, key, request);
    const oldest = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
    for (;;) {
      const id = randomUUID();
      try {
        await idempotencyKeys().insertOne({
          _id,
          requestHash,
          resourceId: id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        });
        return { ok: true, id };
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const existing = await idempotencyKeys().findOne({ _id });
      if (existing && existing.createdAt > oldest) {
        if (existing.requestHash !== requestHash) return { ok: false };
        // Records written before refunds named their id `paymentId`; they are gone a day after the change.
        const taken = existing.resourceId ?? existing.paymentId;
        if (taken === undefined) throw new Error(`idempotency key ${_id} holds no id`);
        return { ok: true, id: taken };
      }
      // Expired (or removed meanwhile): free again; the createdAt condition keeps a concurrent fresh claim.
      if (existing) await idempotencyKeys().deleteOne({ _id: { $eq: _id }, createdAt: { $eq: existing.createdAt } });
    }
  }
}
