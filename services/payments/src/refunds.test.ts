import { randomUUID } from 'node:crypto';
import {
  DomainError,
  MAX_MERCHANT_REFUNDS,
  refundPspId,
  REFUND_WINDOW_MS,
  Subjects,
  type CreateRefundInput,
} from '@pix/contracts';
import { cancelPayment } from './cancel';
import type { PaymentDoc, RefundRecord } from './model';
import { onPixEvent } from './pix-events';
import { toPayment } from './presenter';
import { createRefund, getRefund, listRefunds } from './refunds';
import { commandsIn, eventsIn, flowDeps, given } from './testing/flows';

const E2E = 'E12345678202501011200abcdefghijk';
const all: CreateRefundInput = { amountCents: null, reason: null };

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

function refund(
  flows: ReturnType<typeof flowDeps>,
  doc: PaymentDoc,
  input: CreateRefundInput,
  refundId = randomUUID(),
) {
  return createRefund(flows.deps, { storeId: doc.storeId, livemode: false, paymentId: doc._id, refundId, input });
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; params: Record<string, string> }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, params: err.params };
    throw err;
  }
  throw new Error('not refused');
}

function settled(doc: PaymentDoc, index: number, extra: Record<string, unknown> = {}) {
  return {
    txid: doc.txid,
    endToEndId: doc.paidEndToEndId,
    pspRefundId: refundPspId(doc.txid, index),
    rtrId: `D${index}`,
    settledAt: new Date().toISOString(),
    failureReason: null,
    ...extra,
  };
}

describe("a merchant's refund", () => {
  it('of all that is left by default: one write records it pending, owes refund.created and its command', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const refundId = randomUUID();
    const answer = await refund(flows, doc, { amountCents: null, reason: 'Produto devolvido' }, refundId);
    expect(answer).toEqual({
      id: refundId,
      paymentId: doc._id,
      livemode: false,
      endToEndId: E2E,
      amount: 50,
      status: 'pending',
      reason: 'Produto devolvido',
      origin: 'merchant',
      nature: null,
      createdAt: expect.any(String),
      settledAt: null,
      failureReason: null,
    });
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'approved', rev: 2, eventSeq: 3 });
    const [event, ...others] = eventsIn(flows.published);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      sequence: 3,
      paymentId: doc._id,
      storeId: doc.storeId,
      body: { event: 'refund.created', ...answer, storeId: doc.storeId },
    });
    expect(commandsIn(flows.published).refunds).toEqual([
      {
        txid: doc.txid,
        attempt: 1,
        livemode: false,
        paymentId: doc._id,
        refundId,
        pspRefundId: refundPspId(doc.txid, 0),
        endToEndId: E2E,
        amountCents: 5000,
        description: 'Produto devolvido',
        accepted: false,
      },
    ]);
  });

  it('in parts, each numbered at the PSP, never above what was paid', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await refund(flows, doc, { amountCents: 2000, reason: null });
    await refund(flows, doc, { amountCents: 1500, reason: null });
    expect(await refusal(refund(flows, doc, { amountCents: 1501, reason: null }))).toEqual({
      code: 'refund_above_left',
      params: { leftCents: '1500' },
    });
    const last = await refund(flows, doc, all);
    expect(last.amount).toBe(15);
    expect(await refusal(refund(flows, doc, all))).toEqual({ code: 'refund_above_left', params: { leftCents: '0' } });
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds.map((r) => [r.pspRefundId, r.amountCents])).toEqual([
      [refundPspId(doc.txid, 0), 2000],
      [refundPspId(doc.txid, 1), 1500],
      [refundPspId(doc.txid, 2), 1500],
    ]);
  });

  it('asked again with the same id (the Idempotency-Key) answers the first, nothing written', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const refundId = randomUUID();
    const first = await refund(flows, doc, { amountCents: 1000, reason: null }, refundId);
    const once = await flows.store.byId(doc._id);
    flows.published.length = 0;
    expect(await refund(flows, doc, { amountCents: 1000, reason: null }, refundId)).toEqual(first);
    expect(await flows.store.byId(doc._id)).toEqual(once);
    expect(flows.published).toEqual([]);
  });

  it('of two racing for the same money: one is taken, the other decides again and is refused', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    // Another refund of 30 lands between this one's read and its write.
    flows.store.beforeNextWrite(async () => {
      await refund(flows, doc, { amountCents: 3000, reason: null });
    });
    expect(await refusal(refund(flows, doc, { amountCents: 3000, reason: null }))).toEqual({
      code: 'refund_above_left',
      params: { leftCents: '2000' },
    });
    expect((await flows.store.byId(doc._id))?.refunds.map((r) => r.amountCents)).toEqual([3000]);
  });

  it.each([
    ['pending', 'refund_not_approved'],
    ['review', 'refund_not_approved'],
    ['not_approved', 'refund_not_approved'],
    ['paid', 'refund_not_approved'],
  ] as const)('of a payment %s is refused (%s), nothing written', async (status, code) => {
    const flows = flowDeps();
    const doc = await approved(flows, { status });
    expect((await refusal(refund(flows, doc, all))).code).toBe(code);
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('90 days after the Pix settled is refused; the day before it is taken', async () => {
    const flows = flowDeps();
    const old = await approved(flows, { paidAt: new Date(Date.now() - REFUND_WINDOW_MS - 60_000) });
    expect((await refusal(refund(flows, old, all))).code).toBe('refund_window_closed');
    const recent = await approved(flows, { paidAt: new Date(Date.now() - REFUND_WINDOW_MS + 60_000) });
    expect((await refund(flows, recent, all)).status).toBe('pending');
  });

  it(`past ${MAX_MERCHANT_REFUNDS} of the merchant's is refused`, async () => {
    const flows = flowDeps();
    const doc = await approved(flows, { paidAmountCents: 500_000, amountCents: 500_000 });
    for (let i = 0; i < MAX_MERCHANT_REFUNDS; i++) await refund(flows, doc, { amountCents: 1, reason: null });
    expect((await refusal(refund(flows, doc, { amountCents: 1, reason: null }))).code).toBe('refund_limit_reached');
  });

  it("of another store's or mode's payment, or none, is the same 404", async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const other = createRefund(flows.deps, {
      storeId: 'store-2',
      livemode: false,
      paymentId: doc._id,
      refundId: randomUUID(),
      input: all,
    });
    expect((await refusal(other)).code).toBe('payment_not_found');
    const otherMode = createRefund(flows.deps, {
      storeId: doc.storeId,
      livemode: true,
      paymentId: doc._id,
      refundId: randomUUID(),
      input: all,
    });
    expect((await refusal(otherMode)).code).toBe('payment_not_found');
    expect((await refusal(listRefunds(flows.store, { storeId: 'store-2', livemode: false }, doc._id))).code).toBe(
      'payment_not_found',
    );
    expect(await flows.store.byId(doc._id)).toEqual(doc);
  });

  it('is listed newest first and read by id', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const first = await refund(flows, doc, { amountCents: 100, reason: null });
    const second = await refund(flows, doc, { amountCents: 200, reason: null });
    expect(
      (await listRefunds(flows.store, { storeId: doc.storeId, livemode: false }, doc._id)).items.map((r) => r.id),
    ).toEqual([second.id, first.id]);
    expect(await getRefund(flows.store, { storeId: doc.storeId, livemode: false }, doc._id, first.id)).toEqual(first);
    expect(
      (await refusal(getRefund(flows.store, { storeId: doc.storeId, livemode: false }, doc._id, randomUUID()))).code,
    ).toBe('refund_not_found');
  });
});

describe("the PSP's settlement of a refund", () => {
  it('succeeded: the refund and refundedAmount move, refund.succeeded owed; told again, nothing more', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const asked = await refund(flows, doc, { amountCents: 1250, reason: null });
    flows.published.length = 0;
    expect(await onPixEvent(flows.deps, Subjects.pixRefunded, settled(doc, 0))).toEqual({ ack: true });
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds[0]).toMatchObject({ status: 'succeeded', rtrId: 'D0', settledAt: expect.anything() });
    expect(toPayment(stored!)).toMatchObject({ status: 'approved', refundedAmount: 12.5 });
    expect(eventsIn(flows.published).map((e) => [e.sequence, e.body])).toEqual([
      [4, expect.objectContaining({ event: 'refund.succeeded', id: asked.id, status: 'succeeded', amount: 12.5 })],
    ]);

    flows.published.length = 0;
    for (const subject of [Subjects.pixRefunded, Subjects.pixRefundFailed]) {
      await onPixEvent(flows.deps, subject, settled(doc, 0));
    }
    expect(await flows.store.byId(doc._id)).toEqual(stored);
    expect(flows.published).toEqual([]);
  });

  it("failed: the PSP's motivo is kept, the money is refundable again", async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await refund(flows, doc, all);
    await onPixEvent(flows.deps, Subjects.pixRefundFailed, settled(doc, 0, { failureReason: 'Conta encerrada' }));
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds[0]).toMatchObject({ status: 'failed', failureReason: 'Conta encerrada' });
    expect(toPayment(stored!).refundedAmount).toBe(0);
    expect(eventsIn(flows.published).at(-1)?.body).toMatchObject({
      event: 'refund.failed',
      failureReason: 'Conta encerrada',
    });
    expect((await refund(flows, doc, all)).amount).toBe(50);
  });

  it('of an unknown refund or charge, or malformed, is acknowledged and changes nothing', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    for (const fact of [settled(doc, 7), { ...settled(doc, 0), txid: 'unknown' }, { txid: doc.txid }]) {
      expect(await onPixEvent(flows.deps, Subjects.pixRefunded, fact)).toEqual({ ack: true });
    }
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('of a late Pix leaves the payment and its refundedAmount as they were', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(flows.deps, Subjects.pixPaid, {
      endToEndId: 'E-late',
      txid: doc.txid,
      amountCents: 700,
      paidAt: new Date().toISOString(),
    });
    await onPixEvent(flows.deps, Subjects.pixRefunded, settled(doc, 0, { endToEndId: 'E-late' }));
    const stored = await flows.store.byId(doc._id);
    expect(stored?.refunds.map((r: RefundRecord) => [r.endToEndId, r.status])).toEqual([['E-late', 'succeeded']]);
    expect(toPayment(stored!)).toMatchObject({ status: 'approved', refundedAmount: 0 });
    // What the merchant may refund is still the whole payment.
    expect((await refund(flows, doc, all)).amount).toBe(50);
  });
});

describe('a cancel', () => {
  it('makes a pending payment not_approved at once, its event says why, and owes the removal of its charge', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    const payment = await cancelPayment(flows.deps, { storeId: doc.storeId, livemode: false }, doc._id);
    expect(payment).toMatchObject({ id: doc._id, status: 'not_approved' });
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'not_approved', cancelledAt: expect.anything() });
    expect(eventsIn(flows.published)).toEqual([
      expect.objectContaining({
        cause: 'cancel',
        body: expect.objectContaining({
          event: 'payment.status_changed',
          previousStatus: 'pending',
          status: 'not_approved',
        }),
      }),
    ]);
    expect(commandsIn(flows.published).cancels).toEqual([
      expect.objectContaining({ txid: doc.txid, paymentId: doc._id, attempt: 1 }),
    ]);
  });

  it.each(['approved', 'review', 'not_approved'] as const)(
    'of a payment %s is refused, nothing written',
    async (status) => {
      const flows = flowDeps();
      const doc = await given(flows, { status });
      expect(await refusal(cancelPayment(flows.deps, { storeId: doc.storeId, livemode: false }, doc._id))).toEqual({
        code: 'cancel_not_pending',
        params: { status },
      });
      expect(await flows.store.byId(doc._id)).toEqual(doc);
      expect(flows.published).toEqual([]);
    },
  );

  it('racing a Pix: whichever lands first decides, and a Pix after the cancel goes back', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 2500 });
    await cancelPayment(flows.deps, { storeId: doc.storeId, livemode: false }, doc._id);
    await onPixEvent(flows.deps, Subjects.pixPaid, {
      endToEndId: E2E,
      txid: doc.txid,
      amountCents: 2500,
      paidAt: new Date().toISOString(),
    });
    const stored = await flows.store.byId(doc._id);
    expect(stored?.status).toBe('not_approved');
    expect(stored?.refunds.map((r) => [r.endToEndId, r.origin, r.amountCents])).toEqual([[E2E, 'platform', 2500]]);
  });

  it("of another store's payment is a 404", async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    expect((await refusal(cancelPayment(flows.deps, { storeId: 'store-2', livemode: false }, doc._id))).code).toBe(
      'payment_not_found',
    );
    expect((await refusal(cancelPayment(flows.deps, { storeId: doc.storeId, livemode: true }, doc._id))).code).toBe(
      'payment_not_found',
    );
  });
});
