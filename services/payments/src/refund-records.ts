import { createHash } from 'node:crypto';
import { PlatformRefundReasons } from '@pix/contracts';
import type { LegacyRefund, PaymentDoc, PaymentState, RefundRecord, StoredPayment } from './model';

/**
 * What a payment's refunds add up to, and a payment as the database may hold it read in today's
 * shape. Sums are of the refunds of the Pix that paid the payment: a platform refund of a Pix that
 * arrived later returns that Pix, not the payment's.
 */

type Refunds = Pick<PaymentState, 'refunds' | 'paidEndToEndId'>;

function ofPaidPix(doc: Refunds): RefundRecord[] {
  return doc.refunds.filter((refund) => refund.endToEndId === doc.paidEndToEndId);
}

/** The sum of the succeeded refunds of the Pix that paid the payment: its `refundedAmount`. */
export function refundedCents(doc: Refunds): number {
  return ofPaidPix(doc)
    .filter((refund) => refund.status === 'succeeded')
    .reduce((sum, refund) => sum + refund.amountCents, 0);
}

/** What is left to refund of the paid Pix: its amount less every refund of it that has not failed. */
export function refundableCents(doc: Refunds & Pick<PaymentState, 'paidAmountCents'>): number {
  const taken = ofPaidPix(doc)
    .filter((refund) => refund.status !== 'failed')
    .reduce((sum, refund) => sum + refund.amountCents, 0);
  return Math.max(0, (doc.paidAmountCents ?? 0) - taken);
}

/**
 * What is left to return of one of the payment's Pix: of the one that paid it, refundableCents; of
 * another (a late Pix), the amount its platform refund returns (the whole Pix) less its refunds that
 * have not failed; of a Pix the payment holds no record of, nothing.
 */
export function leftOfPixCents(doc: Refunds & Pick<PaymentState, 'paidAmountCents'>, endToEndId: string): number {
  if (endToEndId === doc.paidEndToEndId) return refundableCents(doc);
  const ofIt = doc.refunds.filter((refund) => refund.endToEndId === endToEndId);
  const amount = ofIt.find((refund) => refund.origin === 'platform')?.amountCents ?? 0;
  const taken = ofIt
    .filter((refund) => refund.status !== 'failed')
    .reduce((sum, refund) => sum + refund.amountCents, 0);
  return Math.max(0, amount - taken);
}

/**
 * A refund of the paid Pix that the platform or the merchant asked for and that is pending or
 * succeeded: the money is on its way back, or back. The PSP's own returns (a MED return) are not
 * asked of it: they only take from what is left (refundableCents).
 */
export function liveRefundOfPaidPix(doc: Refunds): RefundRecord | undefined {
  return ofPaidPix(doc).find((refund) => refund.origin !== 'psp' && refund.status !== 'failed');
}

/** A UUID made from a text (the form of a version 5 one), the same every time it is asked for. */
function uuidFrom(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const LEGACY_STATUS = { processing: 'pending', refunded: 'succeeded', failed: 'failed' } as const;

/** The one refund a payment in review had before refunds were records (`refund`), as a platform refund of the paid Pix. */
function fromLegacy(doc: StoredPayment, legacy: LegacyRefund): RefundRecord[] {
  if (!doc.paidEndToEndId || !doc.paidAmountCents) return [];
  const status = legacy.status === null ? 'pending' : LEGACY_STATUS[legacy.status];
  return [
    {
      id: uuidFrom(`refund:${doc._id}:${legacy.id}`),
      pspRefundId: legacy.id,
      endToEndId: doc.paidEndToEndId,
      amountCents: doc.paidAmountCents,
      status,
      reason:
        legacy.reason === 'analysis_rejected'
          ? PlatformRefundReasons.analysisRejected
          : PlatformRefundReasons.reviewTimeout,
      origin: 'platform',
      createdAt: legacy.requestedAt,
      settledAt: status === 'pending' ? null : legacy.requestedAt,
      failureReason: null,
      rtrId: legacy.rtrId,
    },
  ];
}

function isCurrent(stored: StoredPayment): stored is PaymentDoc {
  return (
    stored.refund === undefined &&
    stored.refunds !== undefined &&
    stored.paidAt !== undefined &&
    stored.cancelledAt !== undefined
  );
}

/**
 * A payment as read from the database, in today's shape: one written before refunds were records
 * of their own gets its fields' defaults and its one refund as a record. Its next write stores it so.
 */
export function currentShape(stored: StoredPayment): PaymentDoc {
  // Every document written since is already in today's shape and is returned as read: copying it
  // (a rest spread of some 25 fields) was most of a list's CPU in the payments service.
  if (isCurrent(stored)) return stored;
  const { refund: legacy, refunds, paidAt, cancelledAt, ...rest } = stored;
  return {
    ...rest,
    refunds: refunds ?? (legacy ? fromLegacy(stored, legacy) : []),
    paidAt: paidAt ?? null,
    cancelledAt: cancelledAt ?? null,
  };
}
