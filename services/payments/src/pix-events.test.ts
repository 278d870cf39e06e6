import { PlatformRefundReasons, refundPspId, Subjects } from '@pix/contracts';
import { onPixEvent } from './pix-events';
import { toPayment } from './presenter';
import { commandsIn, dueIn, eventsIn, flowDeps, given, refundRecord, testConfig } from './testing/flows';
import { transition } from './transitions';

const E2E = 'E12345678202501011200abcdefghijk';
const paid = (txid: string, amountCents: number, endToEndId = E2E) => ({
  endToEndId,
  txid,
  amountCents,
  paidAt: new Date().toISOString(),
});
const analysis = (txid: string, endToEndId = E2E) => ({ endToEndId, txid, decidedAt: new Date().toISOString() });

describe('a Pix the PSP received', () => {
  it('of the exact amount approves a pending payment', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 2500 });
    expect(await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, 2500))).toEqual({ ack: true });
    expect(await flows.store.byId(doc._id)).toMatchObject({
      status: 'approved',
      paidEndToEndId: E2E,
      paidAmountCents: 2500,
      eventSeq: 2,
    });
    const [event, ...others] = eventsIn(flows.published);
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      sequence: 2,
      body: { event: 'payment.status_changed', id: doc._id, status: 'approved', previousStatus: 'pending' },
    });
    expect(dueIn(flows.published)).toEqual([]);
  });

  it.each([
    ['less', 2499],
    ['more', 2501],
  ])('of %s than the amount sends it to review, its refund due REVIEW_TIMEOUT ahead', async (_what, amount) => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 2500 });
    const before = Date.now();
    await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, amount));
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'review', paidEndToEndId: E2E, paidAmountCents: amount });
    const deadline = stored?.deadlineAt?.getTime() ?? 0;
    expect(deadline).toBeGreaterThanOrEqual(before + testConfig.REVIEW_TIMEOUT);
    expect(deadline).toBeLessThanOrEqual(Date.now() + testConfig.REVIEW_TIMEOUT);
    expect(eventsIn(flows.published).map((e) => e.body)).toMatchObject([
      { status: 'review', previousStatus: 'pending' },
    ]);
    expect(dueIn(flows.published)).toEqual([
      {
        body: { paymentId: doc._id, kind: 'refund', at: stored?.deadlineAt?.toISOString(), attempt: 1 },
        at: stored?.deadlineAt,
      },
    ]);
  });

  it("is applied only by its own mode's connection: a test PSP cannot pay a live payment, nor the reverse", async () => {
    const flows = flowDeps();
    const livePayment = await given(flows, { amountCents: 2500, livemode: true });
    const testPayment = await given(flows, { amountCents: 2500 });
    for (const [doc, livemode] of [
      [livePayment, false],
      [testPayment, true],
    ] as const) {
      for (const subject of [Subjects.pixPaid, Subjects.pixReview]) {
        expect(await onPixEvent(flows.deps, subject, { ...paid(doc.txid, 2500), livemode })).toEqual({ ack: true });
      }
      const refund = { txid: doc.txid, endToEndId: E2E, pspRefundId: refundPspId(doc.txid, 0), rtrId: null };
      const settled = { ...refund, settledAt: new Date().toISOString(), failureReason: null, livemode };
      expect(await onPixEvent(flows.deps, Subjects.pixRefunded, settled)).toEqual({ ack: true });
      expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'pending', eventSeq: 1, paidEndToEndId: null });
    }
    expect(flows.published).toEqual([]);
    // Its own mode's fact is applied.
    await onPixEvent(flows.deps, Subjects.pixPaid, { ...paid(livePayment.txid, 2500), livemode: true });
    expect(await flows.store.byId(livePayment._id)).toMatchObject({ status: 'approved' });
  });

  it('held by the PSP for analysis sends it to review even of the exact amount', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 2500 });
    await onPixEvent(flows.deps, Subjects.pixReview, paid(doc.txid, 2500));
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'review', paidAmountCents: 2500 });
    expect(dueIn(flows.published).map((d) => d.body.kind)).toEqual(['refund']);
  });

  it('changes nothing when repeated', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 2500 });
    await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, 2500));
    const once = await flows.store.byId(doc._id);
    flows.published.length = 0;
    // The same fact again, also as a hold or with another amount: the endToEndId says it is known.
    for (const [subject, amount] of [
      [Subjects.pixPaid, 2500],
      [Subjects.pixReview, 2500],
      [Subjects.pixPaid, 100],
    ] as const) {
      expect(await onPixEvent(flows.deps, subject, paid(doc.txid, amount))).toEqual({ ack: true });
    }
    expect(await flows.store.byId(doc._id)).toEqual(once);
    expect(flows.published).toEqual([]);
  });

  it.each(['approved', 'review', 'not_approved', 'paid'] as const)(
    'comes late, for a payment already %s: goes back to its payer in full, once, the payment unchanged',
    async (status) => {
      const flows = flowDeps();
      const doc = await given(flows, { status, paidEndToEndId: status === 'not_approved' ? null : E2E });
      const late = paid(doc.txid, 1234, 'E-another-pix');
      expect(await onPixEvent(flows.deps, Subjects.pixPaid, late)).toEqual({ ack: true });
      const stored = await flows.store.byId(doc._id);
      expect(stored).toMatchObject({ status, paidEndToEndId: doc.paidEndToEndId, eventSeq: 2 });
      expect(stored?.refunds).toEqual([
        expect.objectContaining({
          endToEndId: 'E-another-pix',
          amountCents: 1234,
          origin: 'platform',
          status: 'pending',
          reason: PlatformRefundReasons.latePix,
          pspRefundId: refundPspId(doc.txid, 0),
        }),
      ]);
      expect(toPayment(stored!).refundedAmount).toBe(0);
      expect(eventsIn(flows.published).map((e) => [e.sequence, e.body.event])).toEqual([[2, 'refund.created']]);
      expect(commandsIn(flows.published).refunds).toEqual([
        expect.objectContaining({ endToEndId: 'E-another-pix', amountCents: 1234, attempt: 1 }),
      ]);

      // Redelivered (or told again by the PSP): returned once.
      flows.published.length = 0;
      expect(await onPixEvent(flows.deps, Subjects.pixPaid, late)).toEqual({ ack: true });
      expect(await flows.store.byId(doc._id)).toEqual(stored);
      expect(flows.published).toEqual([]);
    },
  );

  it('that loses the race to another change is a late one: the expiry lands first, the Pix goes back', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { amountCents: 2500 });
    // The charge's expiry is written between this fact's read and its write.
    flows.store.beforeNextWrite(async () => {
      await transition(flows.store, doc._id, 'pending', 'not_approved');
    });
    expect(await onPixEvent(flows.deps, Subjects.pixPaid, paid(doc.txid, 2500))).toEqual({ ack: true });
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'not_approved', paidEndToEndId: null });
    expect(stored?.refunds.map((r) => [r.endToEndId, r.amountCents, r.origin])).toEqual([[E2E, 2500, 'platform']]);
    expect(eventsIn(flows.published).map((e) => e.body.event)).toEqual(['payment.status_changed', 'refund.created']);
  });

  it('is ignored for an unknown charge, or when malformed', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    expect(await onPixEvent(flows.deps, Subjects.pixPaid, paid('unknowntxid', 1000))).toEqual({ ack: true });
    expect(await onPixEvent(flows.deps, Subjects.pixPaid, { txid: doc.txid, amountCents: 'ten' })).toEqual({
      ack: true,
    });
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });
});

describe("the end of the PSP's analysis of a payment in review", () => {
  async function inReview(flows: ReturnType<typeof flowDeps>) {
    const doc = await given(flows, { amountCents: 2500 });
    await onPixEvent(flows.deps, Subjects.pixReview, paid(doc.txid, 2500));
    flows.published.length = 0;
    return (await flows.store.byId(doc._id))!;
  }

  it('cleared: approves it, its refund deadline dropped', async () => {
    const flows = flowDeps();
    const doc = await inReview(flows);
    expect(await onPixEvent(flows.deps, Subjects.pixCleared, analysis(doc.txid))).toEqual({ ack: true });
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'approved', deadlineAt: null, eventSeq: 3 });
    expect(eventsIn(flows.published).map((e) => e.body)).toMatchObject([
      { status: 'approved', previousStatus: 'review' },
    ]);
  });

  it('cleared while its paid Pix is being refunded: stays in review, refunded', async () => {
    const flows = flowDeps();
    const doc = await inReview(flows);
    const refund = refundRecord({ endToEndId: E2E, amountCents: 2500 });
    await flows.store.write(doc._id, () => ({ set: { refunds: [refund] }, messages: [] }));
    flows.published.length = 0;
    await onPixEvent(flows.deps, Subjects.pixCleared, analysis(doc.txid));
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'review', refunds: [refund] });
    expect(flows.published).toEqual([]);
  });

  it('rejected: the refund falls due at once, the payment still in review', async () => {
    const flows = flowDeps();
    const doc = await inReview(flows);
    const before = Date.now();
    await onPixEvent(flows.deps, Subjects.pixRejected, analysis(doc.txid));
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'review', refundReason: 'analysis_rejected' });
    expect(stored?.deadlineAt?.getTime()).toBeGreaterThanOrEqual(before);
    expect(stored?.deadlineAt?.getTime()).toBeLessThan(doc.deadlineAt!.getTime());
    expect(dueIn(flows.published)).toEqual([
      {
        body: { paymentId: doc._id, kind: 'refund', at: stored?.deadlineAt?.toISOString(), attempt: 1 },
        at: stored?.deadlineAt,
      },
    ]);
    expect(eventsIn(flows.published)).toEqual([]);

    // Told again: nothing more.
    flows.published.length = 0;
    await onPixEvent(flows.deps, Subjects.pixRejected, analysis(doc.txid));
    expect(await flows.store.byId(doc._id)).toEqual(stored);
    expect(flows.published).toEqual([]);
  });

  it.each([
    ['of another Pix', (txid: string) => analysis(txid, 'E-another-pix')],
    ['of a payment not in review', null],
  ])('is ignored when it is %s', async (_what, event) => {
    const flows = flowDeps();
    const doc = event ? await inReview(flows) : await given(flows, { status: 'approved', paidEndToEndId: E2E });
    const fact = event ? event(doc.txid) : analysis(doc.txid);
    for (const subject of [Subjects.pixCleared, Subjects.pixRejected]) {
      expect(await onPixEvent(flows.deps, subject, fact)).toEqual({ ack: true });
    }
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });
});
