import { randomUUID } from 'node:crypto';
import { Subjects } from '@pix/contracts';
import { pspRefundsAboveLeft, refundsCreated, refundSettlementsUnknownCharge } from './metrics';
import type { PaymentDoc } from './model';
import { onPixEvent } from './pix-events';
import { toPayment } from './presenter';
import { createRefund, listRefunds } from './refunds';
import { commandsIn, eventsIn, flowDeps, given } from './testing/flows';

const E2E = 'E12345678202501011200abcdefghijk';
/** A devolução id of the PSP's own choosing: not the platform's form (txid + refund number). */
const MED_ID = 'PSP0123456789ABCDEF0123456789ABCDE';

async function approved(flows: ReturnType<typeof flowDeps>, fields: Partial<PaymentDoc> = {}) {
  return given(flows, {
    status: 'approved',
    amountCents: 5000,
    paidEndToEndId: E2E,
    paidAmountCents: 5000,
    paidAt: new Date(),
    eventSeq: 2,
    ...fields,
  });
}

/** The adapter's fact of a devolução the PSP made on its own and settled. */
function medReturn(doc: PaymentDoc, extra: Record<string, unknown> = {}) {
  return {
    txid: doc.txid,
    endToEndId: E2E,
    pspRefundId: MED_ID,
    rtrId: 'D99999999202501011200medmedmedme',
    settledAt: '2026-01-02T10:00:00.000Z',
    failureReason: null,
    amountCents: 5000,
    nature: 'med_fraud',
    livemode: false,
    ...extra,
  };
}

async function counted<T extends string>(
  metric: { get(): Promise<{ values: { labels: Partial<Record<T, string | number>>; value: number }[] }> },
  labels: Partial<Record<T, string>>,
): Promise<number> {
  const { values } = await metric.get();
  const fits = (v: { labels: Partial<Record<T, string | number>> }) =>
    Object.entries(labels).every(([key, value]) => v.labels[key as T] === value);
  return values.filter(fits).reduce((sum, v) => sum + v.value, 0);
}

describe('a devolução the PSP made on its own (a MED return)', () => {
  it('becomes a refund of origin psp: counted in refundedAmount, refund.created then refund.succeeded, nothing sent to the PSP', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const before = await counted(refundsCreated, { origin: 'psp' });
    expect(await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc))).toEqual({ ack: true });

    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds).toEqual([
      {
        id: expect.any(String),
        pspRefundId: MED_ID,
        endToEndId: E2E,
        amountCents: 5000,
        status: 'succeeded',
        reason: null,
        origin: 'psp',
        nature: 'med_fraud',
        createdAt: new Date('2026-01-02T10:00:00.000Z'),
        settledAt: new Date('2026-01-02T10:00:00.000Z'),
        failureReason: null,
        rtrId: 'D99999999202501011200medmedmedme',
      },
    ]);
    expect(toPayment(stored!)).toMatchObject({ status: 'approved', refundedAmount: 50 });
    const [listed] = (await listRefunds(flows.store, { storeId: doc.storeId, livemode: false }, doc._id)).items;
    expect(listed).toMatchObject({ origin: 'psp', nature: 'med_fraud', status: 'succeeded', amount: 50, reason: null });
    expect(eventsIn(flows.published).map((e) => [e.sequence, e.body])).toEqual([
      [
        3,
        expect.objectContaining({
          event: 'refund.created',
          id: listed?.id,
          status: 'pending',
          origin: 'psp',
          nature: 'med_fraud',
          settledAt: null,
        }),
      ],
      [4, expect.objectContaining({ event: 'refund.succeeded', id: listed?.id, status: 'succeeded', amount: 50 })],
    ]);
    expect(stored?.eventSeq).toBe(4);
    expect(commandsIn(flows.published).refunds).toEqual([]);
    expect(await counted(refundsCreated, { origin: 'psp' })).toBe(before + 1);
  });

  it('told again, by callback, listing or read-back, and even as failed: recorded once, announced once', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc));
    const once = await flows.store.byId(doc._id);
    const published = flows.published.length;
    for (const subject of [Subjects.pixRefunded, Subjects.pixRefundFailed, Subjects.pixRefunded]) {
      expect(await onPixEvent(flows.deps, subject, medReturn(doc))).toEqual({ ack: true });
    }
    expect(await flows.store.byId(doc._id)).toEqual(once);
    expect(flows.published).toHaveLength(published);
  });

  it('told twice at once: the write that loses decides again on the payment as it is, and adds nothing', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    // The same settlement, redelivered, lands between this one's read and its write.
    flows.store.beforeNextWrite(async () => {
      await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc));
    });
    await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc));
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds.map((r) => r.pspRefundId)).toEqual([MED_ID]);
    expect(eventsIn(flows.published).map((e) => e.body.event)).toEqual(['refund.created', 'refund.succeeded']);
  });

  it('of part of the Pix leaves the rest to the merchant, who cannot refund more than that', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(
      flows.deps,
      Subjects.pixRefunded,
      medReturn(doc, { amountCents: 2000, nature: 'med_operational' }),
    );
    const merchants = await createRefund(flows.deps, {
      storeId: doc.storeId,
      livemode: false,
      paymentId: doc._id,
      refundId: randomUUID(),
      input: { amountCents: null, reason: null },
    });
    expect(merchants).toMatchObject({ amount: 30, origin: 'merchant', nature: null });
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds.map((r) => [r.origin, r.nature ?? null, r.amountCents])).toEqual([
      ['psp', 'med_operational', 2000],
      ['merchant', null, 3000],
    ]);
  });

  it('of another natureza, or none told, is of nature other', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const { nature: _nature, ...untold } = medReturn(doc, { amountCents: 1000 });
    await onPixEvent(flows.deps, Subjects.pixRefunded, untold);
    expect((await flows.store.byId(doc._id))?.refunds.map((r) => r.nature)).toEqual(['other']);
  });

  it('that failed is recorded failed: refund.created then refund.failed, refundedAmount unchanged', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(
      flows.deps,
      Subjects.pixRefundFailed,
      medReturn(doc, { failureReason: 'Saldo bloqueado insuficiente' }),
    );
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds[0]).toMatchObject({ status: 'failed', failureReason: 'Saldo bloqueado insuficiente' });
    expect(toPayment(stored!).refundedAmount).toBe(0);
    expect(eventsIn(flows.published).map((e) => [e.body.event, e.body.status])).toEqual([
      ['refund.created', 'pending'],
      ['refund.failed', 'failed'],
    ]);
  });

  it('larger than what is left to refund: recorded as the PSP says, flagged at error and counted', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    // The merchant's refund of 30 is on its way when the PSP returns the whole Pix on its own.
    await createRefund(flows.deps, {
      storeId: doc.storeId,
      livemode: false,
      paymentId: doc._id,
      refundId: randomUUID(),
      input: { amountCents: 3000, reason: null },
    });
    const error = jest.spyOn(flows.deps.logger, 'error');
    const before = await counted(pspRefundsAboveLeft, { nature: 'med_fraud' });
    await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc));

    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds.map((r) => [r.origin, r.status, r.amountCents])).toEqual([
      ['merchant', 'pending', 3000],
      ['psp', 'succeeded', 5000],
    ]);
    expect(toPayment(stored!).refundedAmount).toBe(50);
    expect(await counted(pspRefundsAboveLeft, { nature: 'med_fraud' })).toBe(before + 1);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ paymentId: doc._id, pspRefundId: MED_ID, amountCents: 5000, leftCents: 2000 }),
      expect.stringContaining('more than was left'),
    );
  });

  it('within what is left is not flagged', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const before = await counted(pspRefundsAboveLeft, {});
    await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc, { amountCents: 4999 }));
    expect(await counted(pspRefundsAboveLeft, {})).toBe(before);
  });

  it('for a charge the platform does not know: logged at error, counted under its connection, nothing written', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const error = jest.spyOn(flows.deps.logger, 'error');
    const before = await counted(refundSettlementsUnknownCharge, { connection: 'live' });
    const fact = medReturn(doc, { txid: 'unknowntxid0000000000000000000', livemode: true });
    expect(await onPixEvent(flows.deps, Subjects.pixRefunded, fact)).toEqual({ ack: true });
    expect(await counted(refundSettlementsUnknownCharge, { connection: 'live' })).toBe(before + 1);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ connection: 'live', txid: fact.txid, pspRefundId: MED_ID, amountCents: 5000 }),
      expect.stringContaining('does not know'),
    );
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it("told by the other mode's connection is refused, nothing written", async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(flows.deps, Subjects.pixRefunded, medReturn(doc, { livemode: true }));
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('without its amount (an adapter from before amounts were told): logged at error, nothing written', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const error = jest.spyOn(flows.deps.logger, 'error');
    const { amountCents: _amount, ...unsized } = medReturn(doc);
    expect(await onPixEvent(flows.deps, Subjects.pixRefunded, unsized)).toEqual({ ack: true });
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ paymentId: doc._id, pspRefundId: MED_ID }),
      expect.stringContaining('without its amount'),
    );
    expect(await flows.store.byId(doc._id)).toEqual(doc);
  });
});
