import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { DomainError, Subjects, subjectMatches } from '@pix/contracts';
import type { PaymentStore } from '../../services/payments/src/payment-store';
import { createRefund } from '../../services/payments/src/refunds';
import { pendingPaymentDoc } from './payment-fixture';
import { racingStores } from './racing-stores';

const REFUNDERS = 40;

/**
 * Refunds racing for one payment's money on the real engine, each through a store of its own (as
 * many replicas would): the check that the refunds not failed stay within what was paid and the
 * record of the refund are one update conditional on the revision decided on, so however they
 * interleave the refunds taken never exceed the payment, each has one refund.created and one
 * command to the PSP, and every other one is refused with what is left.
 */
describe('refunds racing for one payment', () => {
  const { stores, published, logger } = racingStores('refund_race', REFUNDERS);
  const [first] = stores as [PaymentStore];

  async function approvedPayment(paidCents: number) {
    const doc = pendingPaymentDoc({
      storeId: 'race-store',
      status: 'approved',
      amountCents: paidCents,
      paidEndToEndId: `E${randomUUID().replace(/-/g, '')}`,
      paidAmountCents: paidCents,
      paidAt: new Date(),
      eventSeq: 2,
    });
    expect(await first.insert(doc, [])).toBe('created');
    // Every store's publishing done, the earlier race's included: nothing of theirs may land in a
    // later case's count of commands.
    await Promise.all(stores.map((store) => store.flush()));
    published.length = 0;
    return doc;
  }

  it.each([
    ['each a third of it', 3333, 3],
    ['each a seventh of it', 1428, 7],
    ['each 1 centavo more than a quarter', 2501, 3],
  ])('%s: never more than was paid, one event and one command per refund taken', async (_what, each, fits) => {
    const doc = await approvedPayment(10_000);
    const deps = (i: number) => ({ logger, store: stores[i]! });
    const results = await Promise.allSettled(
      stores.map((_, i) =>
        createRefund(deps(i), {
          storeId: doc.storeId,
          livemode: false,
          paymentId: doc._id,
          refundId: randomUUID(),
          input: { amountCents: each, reason: null },
        }),
      ),
    );
    const taken = results.filter((r) => r.status === 'fulfilled');
    expect(taken).toHaveLength(fits);
    for (const refused of results.filter((r) => r.status === 'rejected')) {
      expect(refused.reason).toBeInstanceOf(DomainError);
      expect((refused.reason as DomainError).code).toBe('refund_above_left');
      expect(Number((refused.reason as DomainError).params.leftCents)).toBeLessThan(each);
    }
    const stored = await first.byId(doc._id);
    const sum = stored!.refunds.reduce((total, r) => total + r.amountCents, 0);
    expect(sum).toBe(each * fits);
    expect(sum).toBeLessThanOrEqual(10_000);
    expect(stored!.refunds.map((r) => r.pspRefundId).sort()).toEqual(
      [...Array(fits).keys()].map((i) => `${doc.txid}${i.toString(36).padStart(3, '0')}`).sort(),
    );
    expect(stored).toMatchObject({ eventSeq: 2 + fits, rev: 1 + fits });
    // A later writer publishes what the outbox still holds as well (JetStream keeps one per id): count by id.
    const owed = (pattern: string) =>
      new Map(published.filter((m) => subjectMatches(pattern, m.subject)).map((m) => [m.msgId, m]));
    const created = [...owed(Subjects.paymentEventsOfType('refund.created')).values()];
    expect(created.map((m) => (m.body as { sequence: number }).sequence).sort()).toEqual(
      [...Array(fits).keys()].map((i) => 3 + i),
    );
    expect(owed(Subjects.pixCommand('refund')).size).toBe(fits);
  });

  it('the check and the write of a refund are one database command', async () => {
    const doc = await approvedPayment(5000);
    const commands: Record<string, number> = {};
    const count = (event: { commandName: string }) =>
      (commands[event.commandName] = (commands[event.commandName] ?? 0) + 1);
    const client = mongoose.connection.getClient();
    client.on('commandStarted', count);
    try {
      await createRefund(
        { logger, store: first },
        {
          storeId: doc.storeId,
          livemode: false,
          paymentId: doc._id,
          refundId: randomUUID(),
          input: { amountCents: 1000, reason: null },
        },
      );
    } finally {
      client.off('commandStarted', count);
    }
    // The read of the payment (the store's, or 404), then one conditional update: that its messages
    // were published is written nowhere.
    expect(commands).toEqual({ find: 1, update: 1 });
  });
});
