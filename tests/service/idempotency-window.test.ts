import mongoose from 'mongoose';
import { GatewayStorage, IDEMPOTENCY_WINDOW_MS } from '../../services/gateway/src/storage';
import { sharedStack } from '../support/stack';
import { testSealer } from '../support/sealer';

/** The 24-hour window of Idempotency-Key, on the stack's database, with the clock given explicitly. */
const stack = sharedStack();
const input = { amountCents: 1000, email: null, observation: null, webhookUrl: null };
const storeId = `window-store-${Date.now()}`;
const keys = new GatewayStorage(testSealer()).idempotencyKeys;

beforeAll(() => mongoose.connect(stack.mongoAdminUrl!));
afterAll(() => mongoose.disconnect());

describe('Idempotency-Key window', () => {
  it('remembers a key for 24 hours, then frees it for a new payment', async () => {
    const start = new Date();
    const first = await keys.claim(storeId, 'k1', input, start);
    const within = await keys.claim(storeId, 'k1', input, new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS - 1));
    expect(within).toEqual(first);
    const after = await keys.claim(storeId, 'k1', input, new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS + 1));
    expect(after.ok && first.ok && after.paymentId !== first.paymentId).toBe(true);
  });

  it('stores neither the key nor the body, only their hashes', async () => {
    await keys.claim(storeId, 'secret-key', { ...input, email: 'someone@example.com' });
    const docs = await mongoose.connection
      .db!.collection('idempotency_keys')
      .find({ _id: { $regex: `^${storeId}:` } as never })
      .toArray();
    expect(JSON.stringify(docs)).not.toMatch(/secret-key|someone@example\.com/);
  });
});
