import mongoose from 'mongoose';
import type { PaymentStatus } from '@pix/contracts';
import { createLogger } from '@pix/observability';
import type { OutboxMessage } from '../../services/payments/src/model';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { transition } from '../../services/payments/src/transitions';
import { pendingPaymentDoc } from './payment-fixture';
import { sharedStack } from '../support/stack';

const WRITERS = 100;
const TARGETS: PaymentStatus[] = ['approved', 'review', 'not_approved', 'rejected'];

/**
 * A hundred writers race to move one pending payment, each through a store of its own (as many
 * replicas would), against the real engine: every write is one update conditional on the revision
 * it decided on, and exactly one of them changes the payment, with exactly one event and one move
 * of the store's counters among everything the writers published.
 */
describe('a hundred writers racing on one payment', () => {
  const published: OutboxMessage[] = [];
  const publish = async (messages: OutboxMessage[]) => void published.push(...messages);
  const logger = createLogger('test', 'silent');
  const stores = Array.from({ length: WRITERS }, () => new PaymentStore(publish, async () => 0, logger));

  beforeAll(async () => {
    // A pool as large as the race, so every writer's update is in flight at once.
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/transition_race'), {
      maxPoolSize: WRITERS,
    });
    await syncPaymentIndexes();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.flush()));
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  it.each([1, 2, 3])('round %i: one transition, one event, one move of the counters', async () => {
    const [first] = stores as [PaymentStore];
    const doc = pendingPaymentDoc({ storeId: 'race-store' });
    expect(await first.insert(doc, [])).toBe('created');
    await first.flush();
    const seen = await first.byId(doc._id);
    published.length = 0;

    // Every writer decides on the same revision it read, as concurrent triggers do.
    const results = await Promise.all(
      stores.map((store, i) => transition(store, doc._id, 'pending', TARGETS[i % TARGETS.length]!, { seen: seen! })),
    );

    const winners = results.filter((r) => r.changed);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => !r.changed).every((r) => r.reason === 'lost_race')).toBe(true);
    const stored = await first.byId(doc._id);
    const won = winners[0]!.doc!.status;
    expect(stored).toMatchObject({ status: won, eventSeq: 2, rev: 2 });

    const events = published.filter((m) => m.increment === undefined);
    expect(events).toHaveLength(1);
    expect(events[0]?.body).toMatchObject({ sequence: 2, body: { status: won, previousStatus: 'pending' } });
    const increments = published.filter((m) => m.increment !== undefined);
    expect(increments.map((m) => [m.subject.split('.').pop(), m.increment]).sort()).toEqual(
      [
        ['pending', -1],
        [won, 1],
      ].sort(),
    );
  });
});
