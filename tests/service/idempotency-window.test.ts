import mongoose from 'mongoose';
import { probeRetention } from '@pix/runtime';
import {
  claimPaymentId,
  IDEMPOTENCY_WINDOW_MS,
  IdempotencyKeyModel,
  idempotencyKeyRetention,
} from '../../services/gateway/src/idempotency';
import { sharedStack } from '../support/stack';

/** The 24-hour window of Idempotency-Key, on the stack's FerretDB, with the clock given explicitly. */
const stack = sharedStack();
const input = { amountCents: 1000, email: null, observation: null, webhookUrl: null };
const storeId = `window-store-${Date.now()}`;

beforeAll(() => mongoose.connect(stack.mongoUrl));
afterAll(() => mongoose.disconnect());

describe('Idempotency-Key window', () => {
  it('remembers a key for 24 hours, then frees it for a new payment', async () => {
    const start = new Date();
    const first = await claimPaymentId(storeId, 'k1', input, start);
    const within = await claimPaymentId(storeId, 'k1', input, new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS - 1));
    expect(within).toEqual(first);
    const after = await claimPaymentId(storeId, 'k1', input, new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS + 1));
    expect(after.ok && first.ok && after.paymentId !== first.paymentId).toBe(true);
  });

  it('stores neither the key nor the body, only their hashes', async () => {
    await claimPaymentId(storeId, 'secret-key', { ...input, email: 'someone@example.com' });
    const docs = await IdempotencyKeyModel.find({ _id: { $regex: `^${storeId}:` } }).lean();
    expect(JSON.stringify(docs)).not.toMatch(/secret-key|someone@example\.com/);
  });

  it('forgets keys days after their window and keeps fresh ones', async () => {
    // Where the server has TTL indexes they do this; the stack's FerretDB has none, so the purge
    // of passed expiry days does.
    const branch = await probeRetention(mongoose.connection.db!);
    const old = new Date(Date.now() - IDEMPOTENCY_WINDOW_MS - 2 * 24 * 60 * 60 * 1000);
    await claimPaymentId(storeId, 'old', input, old);
    const fresh = await claimPaymentId(storeId, 'fresh', input);
    const purge = idempotencyKeyRetention(branch, () => undefined);
    if (branch === 'ttl-index') {
      // MongoDB deletes them itself, through the index the schema now declares.
      await IdempotencyKeyModel.syncIndexes();
      const indexes = await IdempotencyKeyModel.collection.indexes();
      expect(indexes).toContainEqual(expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }));
      return;
    }
    await purge.purge();
    expect(await claimPaymentId(storeId, 'fresh', input)).toEqual(fresh);
    const createdAts = (await IdempotencyKeyModel.find({ _id: { $regex: `^${storeId}:` } }).lean()).map(
      (d) => d.createdAt,
    );
    expect(createdAts.every((createdAt) => createdAt > old)).toBe(true);
  });
});
