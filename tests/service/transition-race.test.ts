import type { PaymentStatus } from '@pix/contracts';
import type { PaymentStore } from '../../services/payments/src/payment-store';
import { transition } from '../../services/payments/src/transitions';
import { pendingPaymentDoc } from './payment-fixture';
import { racingStores } from './racing-stores';

const WRITERS = 100;
const TARGETS: PaymentStatus[] = ['approved', 'review', 'not_approved', 'rejected'];

/**
 * A hundred writers race to move one pending payment, each through a store of its own (as many
 * replicas would), against the real engine: every write is one update conditional on the revision
 * it decided on, and exactly one of them changes the payment, with exactly one event and one move
 * of the store's counters among everything the writers published.
 */
describe('a hundred writers racing on one payment', () => {
  const { stores, published } = racingStores('transition_race', WRITERS);

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
