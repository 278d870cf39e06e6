import { PlatformRefundReasons, refundPspId, type PaymentDueKind } from '@pix/contracts';
import { onDue } from './deadlines';
import type { PaymentDoc } from './model';
import { commandsIn, dueIn, eventsIn, flowDeps, given, refundRecord } from './testing/flows';

const E2E = 'E12345678202501011200abcdefghijk';
const due = (doc: PaymentDoc, kind: PaymentDueKind, at: Date | null, attempt = 1) => ({
  paymentId: doc._id,
  kind,
  at: at?.toISOString() ?? new Date(0).toISOString(),
  attempt,
});

describe('the expiry of a charge', () => {
  it('makes a pending payment not_approved', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    expect(await onDue(flows.deps, due(doc, 'expiry', doc.expiresAt))).toEqual({ ack: true });
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'not_approved', eventSeq: 2 });
    expect(eventsIn(flows.published).map((e) => e.body)).toMatchObject([
      { status: 'not_approved', previousStatus: 'pending' },
    ]);
  });

  it('changes nothing when set for another expiry', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    await onDue(flows.deps, due(doc, 'expiry', new Date(doc.expiresAt.getTime() - 1000)));
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('reads the charge at the PSP first, once', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    await onDue(flows.deps, due(doc, 'expiry', doc.expiresAt));
    expect(flows.adapter.reads).toEqual([doc.txid]);
  });

  it('leaves a payment whose charge received a Pix to that Pix (its callback was lost), and looks again later', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    flows.adapter.pixAtPsp.set(doc.txid, 1);
    expect(await onDue(flows.deps, due(doc, 'expiry', doc.expiresAt))).toEqual({ ack: true });
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(eventsIn(flows.published)).toEqual([]);
    expect(dueIn(flows.published).map((d) => d.body)).toMatchObject([{ kind: 'expiry', attempt: 2 }]);
  });

  it('waits for a PSP it cannot read: the expiry is tried again later, nothing else changes', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    flows.adapter.reachable = false;
    expect(await onDue(flows.deps, due(doc, 'expiry', doc.expiresAt))).toEqual({ ack: true });
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    const [retry, ...others] = dueIn(flows.published);
    expect(others).toEqual([]);
    expect(retry?.body).toMatchObject({ kind: 'expiry', at: doc.expiresAt.toISOString(), attempt: 2 });
    expect(retry?.at.getTime()).toBeGreaterThan(Date.now());
  });

  it('expires a payment whose charge the PSP never took without asking it', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { chargeCreated: false, qrCopyPaste: null, qrCodeUrl: null });
    flows.adapter.reachable = false;
    await onDue(flows.deps, due(doc, 'expiry', doc.expiresAt));
    expect(flows.adapter.reads).toEqual([]);
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'not_approved' });
  });

  it.each(['approved', 'review', 'not_approved'] as const)('changes nothing for a payment %s', async (status) => {
    const flows = flowDeps();
    const doc = await given(flows, { status });
    await onDue(flows.deps, due(doc, 'expiry', doc.expiresAt));
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });
});

describe('the refund of a payment in review', () => {
  async function inReview(flows: ReturnType<typeof flowDeps>, fields: Partial<PaymentDoc> = {}) {
    return given(flows, {
      status: 'review',
      amountCents: 2500,
      paidEndToEndId: E2E,
      paidAmountCents: 2400,
      deadlineAt: new Date(Date.now() - 1000),
      ...fields,
    });
  }

  it('when its review times out: not_approved in one write that records a platform refund of the amount paid', async () => {
    const flows = flowDeps();
    const doc = await inReview(flows);
    await onDue(flows.deps, due(doc, 'refund', doc.deadlineAt));
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'not_approved', deadlineAt: null, eventSeq: 3 });
    expect(stored?.refunds).toEqual([
      expect.objectContaining({
        pspRefundId: refundPspId(doc.txid, 0),
        endToEndId: E2E,
        amountCents: 2400,
        status: 'pending',
        origin: 'platform',
        reason: PlatformRefundReasons.reviewTimeout,
      }),
    ]);
    expect(eventsIn(flows.published).map((e) => [e.sequence, e.body.event, e.body.status])).toEqual([
      [2, 'payment.status_changed', 'not_approved'],
      [3, 'refund.created', 'pending'],
    ]);
    expect(commandsIn(flows.published).refunds).toEqual([
      expect.objectContaining({
        pspRefundId: refundPspId(doc.txid, 0),
        endToEndId: E2E,
        amountCents: 2400,
        attempt: 1,
      }),
    ]);
  });

  it('when the analysis rejected the Pix: the refund says so', async () => {
    const flows = flowDeps();
    const doc = await inReview(flows, { refundReason: 'analysis_rejected' });
    await onDue(flows.deps, due(doc, 'refund', doc.deadlineAt));
    const stored = await flows.store.byId(doc._id);
    expect(stored?.status).toBe('not_approved');
    expect(stored?.refunds.map((r) => r.reason)).toEqual([PlatformRefundReasons.analysisRejected]);
  });

  it('is not made for another deadline, for a payment no longer in review, or twice', async () => {
    const flows = flowDeps();
    const moved = await inReview(flows);
    await onDue(flows.deps, due(moved, 'refund', new Date(moved.deadlineAt!.getTime() - 60_000)));
    const cleared = await inReview(flows, { status: 'approved', deadlineAt: null });
    await onDue(flows.deps, due(cleared, 'refund', moved.deadlineAt));
    expect(await flows.store.byId(moved._id)).toEqual(moved);
    expect(await flows.store.byId(cleared._id)).toEqual(cleared);
    expect(flows.published).toEqual([]);

    await onDue(flows.deps, due(moved, 'refund', moved.deadlineAt));
    const once = await flows.store.byId(moved._id);
    flows.published.length = 0;
    await onDue(flows.deps, due(moved, 'refund', moved.deadlineAt));
    expect(await flows.store.byId(moved._id)).toEqual(once);
    expect(flows.published).toEqual([]);
  });

  it('after the PSP returned part of the held Pix on its own (MED): a platform refund of the rest', async () => {
    const flows = flowDeps();
    const med = refundRecord({
      pspRefundId: 'PSPmed',
      endToEndId: E2E,
      amountCents: 400,
      status: 'succeeded',
      origin: 'psp',
      nature: 'med_fraud',
    });
    const doc = await inReview(flows, { refunds: [med] });
    await onDue(flows.deps, due(doc, 'refund', doc.deadlineAt));
    const stored = await flows.store.byId(doc._id);
    expect(stored?.status).toBe('not_approved');
    expect(stored?.refunds.map((r) => [r.origin, r.amountCents])).toEqual([
      ['psp', 400],
      ['platform', 2000],
    ]);
    expect(commandsIn(flows.published).refunds).toEqual([
      expect.objectContaining({ pspRefundId: refundPspId(doc.txid, 1), amountCents: 2000, attempt: 1 }),
    ]);
  });

  it('after the PSP returned all of the held Pix on its own: not_approved, nothing more to refund', async () => {
    const flows = flowDeps();
    const med = refundRecord({ endToEndId: E2E, amountCents: 2400, status: 'succeeded', origin: 'psp' });
    const doc = await inReview(flows, { refunds: [med] });
    await onDue(flows.deps, due(doc, 'refund', doc.deadlineAt));
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'not_approved', refunds: [med] });
    expect(commandsIn(flows.published).refunds).toEqual([]);
  });

  it('asked before refunds were records (a pending refund of the paid Pix): its command again, no second refund', async () => {
    const flows = flowDeps();
    const earlier = refundRecord({ endToEndId: E2E, amountCents: 2400, reason: PlatformRefundReasons.reviewTimeout });
    const doc = await inReview(flows, { refunds: [earlier] });
    await onDue(flows.deps, due(doc, 'refund', doc.deadlineAt));
    const stored = await flows.store.byId(doc._id);
    expect(stored).toMatchObject({ status: 'not_approved', refunds: [earlier] });
    // Sent again as a later try: the adapter reads the PSP's record before it sends anything.
    expect(commandsIn(flows.published).refunds).toEqual([
      expect.objectContaining({ pspRefundId: 'devlegacy', attempt: 2 }),
    ]);
  });
});

describe('the retry of a charge the PSP did not take', () => {
  it('completes the charge', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { chargeCreated: false, qrCodeUrl: null, qrCopyPaste: null });
    await onDue(flows.deps, due(doc, 'charge', doc.createdAt));
    expect(flows.adapter.charges).toMatchObject([{ txid: doc.txid, paymentId: doc._id, amountCents: 1000 }]);
    expect(await flows.store.byId(doc._id)).toMatchObject({
      status: 'pending',
      chargeCreated: true,
      qrCopyPaste: `qr-of-${doc.txid}`,
      qrCodeUrl: `http://127.0.0.1:8080/public-api/v1/qrcodes/${doc._id}.png`,
    });
  });

  it('is tried again later, backing off, while the PSP cannot be reached', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { chargeCreated: false, qrCodeUrl: null, qrCopyPaste: null });
    flows.adapter.reachable = false;
    const delays: number[] = [];
    let message = due(doc, 'charge', doc.createdAt);
    for (let i = 0; i < 3; i++) {
      flows.published.length = 0;
      const before = Date.now();
      await onDue(flows.deps, message);
      const [retry] = dueIn(flows.published);
      expect(retry?.body).toMatchObject({ kind: 'charge', attempt: message.attempt + 1, at: message.at });
      delays.push(Math.round((retry!.at.getTime() - before) / 1000));
      message = retry!.body;
    }
    expect(delays).toEqual([1, 2, 4]);
    expect(await flows.store.byId(doc._id)).toEqual(doc);
  });

  it('does nothing for a charge taken since, or a payment no longer pending', async () => {
    const flows = flowDeps();
    const taken = await given(flows);
    const expired = await given(flows, { status: 'not_approved', chargeCreated: false });
    await onDue(flows.deps, due(taken, 'charge', taken.createdAt));
    await onDue(flows.deps, due(expired, 'charge', expired.createdAt));
    expect(flows.adapter.charges).toEqual([]);
    expect(flows.published).toEqual([]);
  });
});

describe('a scheduled message', () => {
  it('is dropped when malformed, or of an unknown payment', async () => {
    const flows = flowDeps();
    expect(await onDue(flows.deps, { paymentId: 'p', kind: 'never', at: 'x', attempt: 1 })).toEqual({ ack: true });
    expect(await onDue(flows.deps, { paymentId: 'nobody', kind: 'expiry', at: 'x', attempt: 1 })).toEqual({
      ack: true,
    });
    expect(flows.published).toEqual([]);
  });
});
