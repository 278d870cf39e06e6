import mongoose from 'mongoose';
import type { CreatePaymentInput } from '@pix/contracts';
import { GatewayStorage, IDEMPOTENCY_WINDOW_MS } from '../../services/gateway/src/storage';
import { sharedStack } from '../support/stack';
import { testSealer } from '../support/sealer';

/** The 24-hour window of Idempotency-Key, on the stack's database, with the clock given explicitly. */
const stack = sharedStack();
const input: CreatePaymentInput = {
  amountCents: 1000,
  email: null,
  observation: null,
  webhookUrl: null,
  expiresInSeconds: null,
};
const create = (fields: Partial<CreatePaymentInput> = {}) => ({
  operation: 'create' as const,
  input: { ...input, ...fields },
});
const storeId = `window-store-${Date.now()}`;
const keys = new GatewayStorage(testSealer()).idempotencyKeys;

beforeAll(() => mongoose.connect(stack.mongoAdminUrl!));
afterAll(() => mongoose.disconnect());

describe('Idempotency-Key window', () => {
  it('remembers a key for 24 hours, then frees it for a new payment', async () => {
    const start = new Date();
    const first = await keys.claim(storeId, 'k1', create(), start);
    const within = await keys.claim(storeId, 'k1', create(), new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS - 1));
    expect(within).toEqual(first);
    const after = await keys.claim(storeId, 'k1', create(), new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS + 1));
    expect(after.ok && first.ok && after.id !== first.id).toBe(true);
  });

  it('names a create and a refund apart under one key; a refund of another payment or amount is refused', async () => {
    const refund = { operation: 'refund' as const, paymentId: 'p1', input: { amountCents: 500, reason: null } };
    const created = await keys.claim(storeId, 'k2', create());
    const refunded = await keys.claim(storeId, 'k2', refund);
    expect(created.ok && refunded.ok && created.id !== refunded.id).toBe(true);
    expect(await keys.claim(storeId, 'k2', refund)).toEqual(refunded);
    expect(await keys.claim(storeId, 'k2', { ...refund, paymentId: 'p2' })).toEqual({ ok: false });
    expect(await keys.claim(storeId, 'k2', { ...refund, input: { amountCents: 501, reason: null } })).toEqual({
      ok: false,
    });
    expect(await keys.claim(storeId, 'k2', create({ expiresInSeconds: 600 }))).toEqual({ ok: false });
  });

  it('still answers a key a create took before keys had operations (the id was paymentId)', async () => {
    const taken = await keys.claim(storeId, 'k3', create());
    if (!taken.ok) throw new Error('not taken');
    await mongoose.connection
      .db!.collection('idempotency_keys')
      .updateOne({ resourceId: taken.id }, { $rename: { resourceId: 'paymentId' } });
    expect(await keys.claim(storeId, 'k3', create())).toEqual(taken);
  });

  it('stores neither the key nor the body, only their hashes', async () => {
    await keys.claim(storeId, 'secret-key', create({ email: 'someone@example.com' }));
    const docs = await mongoose.connection
      .db!.collection('idempotency_keys')
      .find({ _id: { $regex: `^${storeId}:` } as never })
      .toArray();
    expect(JSON.stringify(docs)).not.toMatch(/secret-key|someone@example\.com/);
  });
});
