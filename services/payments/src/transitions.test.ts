import { DomainError, type PaymentStatus } from '@pix/contracts';
import { adminTransition } from './admin-transition';
import { eventsIn, flowDeps, given, refundRecord } from './testing/flows';
import { transition } from './transitions';

describe('a transition', () => {
  it.each([
    ['pending', 'paid'],
    ['approved', 'pending'],
    ['not_approved', 'approved'],
    ['review', 'pending'],
    ['receipt_sent', 'paid'],
  ] as const)('outside the state machine (%s to %s) is refused, nothing written', async (from, to) => {
    const flows = flowDeps();
    const doc = await given(flows, { status: from });
    expect(await transition(flows.store, doc._id, from, to)).toMatchObject({ changed: false, reason: 'refused' });
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('from a status the payment has left changes nothing (a late trigger)', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { status: 'approved' });
    expect(await transition(flows.store, doc._id, 'pending', 'not_approved')).toMatchObject({
      changed: false,
      reason: 'lost_race',
    });
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('is decided again on the payment as it is when another writer got there first', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { chargeCreated: false, qrCopyPaste: null });
    // Decided on revision 1; the charge was completed in the background meanwhile (revision 2).
    await flows.store.write(doc._id, () => ({ set: { chargeCreated: true, qrCopyPaste: 'qr' }, messages: [] }));
    const result = await transition(flows.store, doc._id, 'pending', 'approved', { seen: doc });
    expect(result).toMatchObject({ changed: true, doc: { status: 'approved', rev: 3, eventSeq: 2 } });
    // Nothing the other writer wrote is lost.
    expect(await flows.store.byId(doc._id)).toMatchObject({
      status: 'approved',
      chargeCreated: true,
      qrCopyPaste: 'qr',
    });
    expect(
      eventsIn(flows.published).map((e) => [e.sequence, e.body.status, 'qrCopyPaste' in e.body && e.body.qrCopyPaste]),
    ).toEqual([[2, 'approved', 'qr']]);
  });

  it('decided on a status the payment has left changes nothing', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    await transition(flows.store, doc._id, 'pending', 'approved');
    flows.published.length = 0;
    // A writer racing from the same read: its write is refused, and decided again it is a late trigger.
    flows.store.beforeNextWrite(async () => {
      await transition(flows.store, doc._id, 'approved', 'paid');
    });
    const late = await transition(flows.store, doc._id, 'approved', 'paid');
    expect(late).toMatchObject({ changed: false, reason: 'lost_race', doc: { status: 'paid', rev: 3 } });
    expect(eventsIn(flows.published).map((e) => [e.sequence, e.body.status])).toEqual([[3, 'paid']]);
  });

  it('clears the refund deadline of review unless it sets one', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { status: 'review', deadlineAt: new Date(), paidEndToEndId: 'E1' });
    await transition(flows.store, doc._id, 'review', 'approved');
    expect(await flows.store.byId(doc._id)).toMatchObject({ status: 'approved', deadlineAt: null });
  });
});

describe('an operator transition', () => {
  async function refusal(promise: Promise<unknown>): Promise<string> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
    return err.code;
  }

  it('moves a payment to an internal status and emits its event', async () => {
    const flows = flowDeps();
    const doc = await given(flows, { status: 'approved' });
    expect(await adminTransition(flows.store, doc._id, 'paid')).toEqual({
      paymentId: doc._id,
      previousStatus: 'approved',
      status: 'paid',
    });
    expect(eventsIn(flows.published).map((e) => e.body)).toMatchObject([
      { status: 'paid', previousStatus: 'approved' },
    ]);
  });

  it.each(['pending', 'approved', 'review', 'not_approved'] as PaymentStatus[])(
    'never reaches a public status (%s)',
    async (to) => {
      const flows = flowDeps();
      const doc = await given(flows, { status: to === 'pending' ? 'review' : 'pending' });
      expect(await refusal(adminTransition(flows.store, doc._id, to))).toBe('status_not_admin');
      expect(await flows.store.byId(doc._id)).toEqual(doc);
    },
  );

  it('is refused outside the state machine, and for an unknown payment', async () => {
    const flows = flowDeps();
    const doc = await given(flows);
    expect(await refusal(adminTransition(flows.store, doc._id, 'paid'))).toBe('transition_not_allowed');
    expect(await refusal(adminTransition(flows.store, 'nobody', 'paid'))).toBe('payment_not_found');
    expect(await flows.store.byId(doc._id)).toEqual(doc);
    expect(flows.published).toEqual([]);
  });

  it('cannot take a payment whose paid Pix is being refunded out of review but to not_approved', async () => {
    const flows = flowDeps();
    const refund = refundRecord({ endToEndId: 'E1' });
    const doc = await given(flows, { status: 'review', paidEndToEndId: 'E1', refunds: [refund] });
    expect(await refusal(adminTransition(flows.store, doc._id, 'rejected'))).toBe('transition_not_allowed');
    expect(await flows.store.byId(doc._id)).toEqual(doc);
  });
});
