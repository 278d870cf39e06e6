import { PlatformRefundReasons } from '@pix/contracts';
import type { StoredPayment } from './model';
import { toPayment } from './presenter';
import { currentShape } from './refund-records';
import { paymentDoc } from './testing/flows';

/** A payment as stored before refunds were records of their own: no refunds, paidAt or cancelledAt; maybe `refund`. */
function stored(fields: Partial<StoredPayment>): StoredPayment {
  const { refunds: _r, paidAt: _p, cancelledAt: _c, ...old } = paymentDoc();
  return { ...old, outbox: [], listKey: 'k', statusKey: 'k', ...fields } as StoredPayment;
}

describe('a payment stored before refunds were records', () => {
  it('reads with no refunds, no paidAt, not cancelled', () => {
    expect(currentShape(stored({ status: 'approved' }))).toMatchObject({
      refunds: [],
      paidAt: null,
      cancelledAt: null,
    });
  });

  it.each([
    ['refunded', 'succeeded', 24],
    ['processing', 'pending', 0],
    [null, 'pending', 0],
    ['failed', 'failed', 0],
  ] as const)('with its review refund %s: a platform refund of the paid Pix, %s', (legacy, status, refunded) => {
    const old = stored({
      status: 'not_approved',
      paidEndToEndId: 'E1',
      paidAmountCents: 2400,
      refund: { id: 'devabc', reason: 'analysis_rejected', requestedAt: new Date(), status: legacy, rtrId: 'D1' },
    });
    const doc = currentShape(old);
    expect(doc.refunds).toEqual([
      expect.objectContaining({
        pspRefundId: 'devabc',
        endToEndId: 'E1',
        amountCents: 2400,
        status,
        origin: 'platform',
        reason: PlatformRefundReasons.analysisRejected,
      }),
    ]);
    expect(toPayment(doc).refundedAmount).toBe(refunded);
    // The same id every time it is read: a merchant can read it back.
    expect(currentShape(old).refunds[0]?.id).toBe(doc.refunds[0]?.id);
  });
});

describe("a payment stored in today's shape", () => {
  it('is read as it is, not copied', () => {
    const today = { ...paymentDoc(), outbox: [], listKey: 'k', statusKey: 'k' } as StoredPayment;
    expect(currentShape(today)).toBe(today);
  });

  it('with a review refund left beside its records still loses the old field', () => {
    const both = stored({ refunds: [], paidAt: null, cancelledAt: null, refund: null });
    const doc = currentShape(both);
    expect(doc).not.toBe(both);
    expect(doc).not.toHaveProperty('refund');
  });
});
