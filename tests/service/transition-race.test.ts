import mongoose from 'mongoose';
import type { PaymentStatus } from '@pix/contracts';
import { createLogger } from '@pix/observability';
import type { OutboxMessage, PaymentDoc } from '../../services/payments/src/model';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { transition } from '../../services/payments/src/transitions';
import { pendingPaymentDoc } from './payment-fixture';
import { sharedStack } from '../support/stack';

function pendingPayment(): PaymentDoc {
  return pendingPaymentDoc({ storeId: 'race-store' });
}

/**
 * Racing triggers on one payment (as from several replicas) against the real FerretDB: exactly one
 * transition wins and exactly one event is published. FerretDB applies conditional updates
 * non-atomically, so this holds only because every write first claims its revision with a unique
 * insert (PaymentStore).
 */
describe('racing transitions of one payment', () => {
  const published: OutboxMessage[] = [];
  const store = new PaymentStore(async (messages) => void published.push(...messages), createLogger('test', 'silent'));

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoUrl.replace(/\/[^/]*$/, '/transition_race'));
    await syncPaymentIndexes();
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  it('lets exactly one of four concurrent transitions happen, with one event', async () => {
    const targets: PaymentStatus[] = ['approved', 'review', 'not_approved', 'rejected'];
    for (let round = 0; round < 8; round++) {
      const doc = pendingPayment();
      await store.insert(doc, []);
      published.length = 0;
      const results = await Promise.all(targets.map((to) => transition(store, doc._id, 'pending', to)));
      const winners = results.filter((r) => r.changed);
      expect(winners).toHaveLength(1);
      const stored = await store.byId(doc._id);
      expect(stored?.status).toBe(winners[0]?.doc?.status);
      expect(stored?.eventSeq).toBe(2);
      expect(stored?.rev).toBe(2);
      expect(published).toHaveLength(1);
      expect(published[0]?.body).toMatchObject({
        sequence: 2,
        body: { status: stored?.status, previousStatus: 'pending' },
      });
      expect(await store.openIntents(10)).toEqual([]);
    }
  });
});
