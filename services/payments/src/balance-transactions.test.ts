import { Subjects } from '@pix/contracts';
import { withMovements } from './balance-transactions';
import type { BalanceMovement, OutboxMessage } from './model';
import { onPixEvent } from './pix-events';
import { createRefund } from './refunds';
import { flowDeps, given } from './testing/flows';

const E2E = 'E12345678202501011200abcdefghijk';
const LATE = 'E12345678202501011300lateeeeeeee';
const movementsIn = (published: OutboxMessage[]): BalanceMovement[] =>
  published.flatMap((m) => (m.movement ? [m.movement] : []));

const paid = (txid: string, endToEndId = E2E, amountCents = 5000, livemode = false) => ({
  txid,
  endToEndId,
  amountCents,
  paidAt: '2026-11-28T15:00:00.000Z',
  livemode,
});
const settled = (txid: string, pspRefundId: string, extra: Record<string, unknown> = {}) => ({
  txid,
  endToEndId: E2E,
  pspRefundId,
  rtrId: null,
  settledAt: '2026-11-28T16:00:00.000Z',
  failureReason: null,
  ...extra,
});

describe('the movements of a store’s money', () => {
  it('a Pix received is +paid, dated when it settled, once however often it is told', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 5000, livemode: true });
    await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, E2E, 5000, true));
    await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, E2E, 5000, true));
    expect(movementsIn(flows.published)).toEqual([
      {
        id: `${doc._id}:pix_received:${E2E}`,
        storeId: doc.storeId,
        livemode: true,
        type: 'pix_received',
        amountCents: 5000,
        paymentId: doc._id,
        refundId: null,
        endToEndId: E2E,
        origin: null,
        nature: null,
        connection: 'live',
        createdAt: new Date('2026-11-28T15:00:00.000Z'),
      },
    ]);
  });

  it('a refund moves money when it succeeded, not when asked, and never when it failed', async () => {
    const flows = flowDeps();
    const doc = await given(flows, {
      status: 'approved',
      paidEndToEndId: E2E,
      paidAmountCents: 5000,
      paidAt: new Date(),
      eventSeq: 2,
    });
    const scope = { storeId: doc.storeId, livemode: false };
    const first = await createRefund(flows.deps, {
      ...scope,
      paymentId: doc._id,
      refundId: crypto.randomUUID(),
      input: { amountCents: 1000, reason: null },
    });
    const second = await createRefund(flows.deps, {
      ...scope,
      paymentId: doc._id,
      refundId: crypto.randomUUID(),
      input: { amountCents: 500, reason: null },
    });
    expect(movementsIn(flows.published)).toEqual([]);
    const stored = (await flows.store.byId(doc._id))!;
    const [one, two] = stored.refunds;
    await onPixEvent(flows.deps, Subjects.pixRefunded, settled(doc.txid, one!.pspRefundId));
    await onPixEvent(flows.deps, Subjects.pixRefunded, settled(doc.txid, one!.pspRefundId));
    await onPixEvent(flows.deps, Subjects.pixRefundFailed, settled(doc.txid, two!.pspRefundId, { failureReason: 'x' }));
    expect(movementsIn(flows.published)).toEqual([
      expect.objectContaining({
        id: `${doc._id}:refund:${first.id}`,
        type: 'refund',
        amountCents: -1000,
        refundId: first.id,
        origin: 'merchant',
        createdAt: new Date('2026-11-28T16:00:00.000Z'),
      }),
    ]);
    expect(second.id).toBe(two!.id);
  });

  it('a MED return is a med_return with its nature; another return of the PSP is a refund', async () => {
    const flows = flowDeps();
    const doc = await given(flows, {
      status: 'approved',
      paidEndToEndId: E2E,
      paidAmountCents: 5000,
      paidAt: new Date(),
      eventSeq: 2,
    });
    await onPixEvent(
      flows.deps,
      Subjects.pixRefunded,
      settled(doc.txid, 'MED1', { amountCents: 3000, nature: 'med_fraud', livemode: false }),
    );
    await onPixEvent(
      flows.deps,
      Subjects.pixRefunded,
      settled(doc.txid, 'RET1', { amountCents: 1000, nature: 'other', livemode: false }),
    );
    expect(movementsIn(flows.published).map((m) => [m.type, m.amountCents, m.origin, m.nature])).toEqual([
      ['med_return', -3000, 'psp', 'med_fraud'],
      ['refund', -1000, 'psp', 'other'],
    ]);
  });

  it('a late Pix is + when it arrives and − when its return succeeded', async () => {
    const flows = flowDeps();
    const doc = await given(flows, {
      status: 'approved',
      paidEndToEndId: E2E,
      paidAmountCents: 5000,
      paidAt: new Date(),
      eventSeq: 2,
    });
    await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, LATE, 700));
    await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, LATE, 700));
    const [late] = (await flows.store.byId(doc._id))!.refunds;
    await onPixEvent(flows.deps, Subjects.pixRefunded, settled(doc.txid, late!.pspRefundId, { endToEndId: LATE }));
    expect(movementsIn(flows.published).map((m) => [m.id, m.type, m.amountCents, m.endToEndId])).toEqual([
      [`${doc._id}:late_pix_received:${LATE}`, 'late_pix_received', 700, LATE],
      [`${doc._id}:late_pix_returned:${late!.id}`, 'late_pix_returned', -700, LATE],
    ]);
  });

  it('the publish path sends movements to the record and everything else to JetStream', async () => {
    const toStream: OutboxMessage[][] = [];
    const recorded: BalanceMovement[][] = [];
    const publish = withMovements(
      async (m) => void toStream.push(m),
      async (m) => void recorded.push(m),
    );
    const movement = { id: 'p:pix_received:E' } as BalanceMovement;
    await publish([
      { subject: 'payments.events.created', msgId: 'evt_1' },
      { subject: 'balance_transactions', msgId: movement.id, movement },
    ]);
    await publish([{ subject: 'payments.events.created', msgId: 'evt_2' }]);
    expect(toStream.map((batch) => batch.map((m) => m.msgId))).toEqual([['evt_1'], ['evt_2']]);
    expect(recorded).toEqual([[movement]]);
  });
});
