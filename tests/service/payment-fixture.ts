import { randomUUID } from 'node:crypto';
import { txidFor } from '@pix/contracts';
import type { PaymentState } from '../../services/payments/src/model';

/** A new pending payment with a fresh id, for tests of payments' storage; `fields` change any of it. */
export function pendingPaymentDoc(fields: Partial<PaymentState> = {}): PaymentState {
  const id = fields._id ?? randomUUID();
  return {
    _id: id,
    txid: txidFor(id),
    storeId: 'test-store',
    status: 'pending',
    amountCents: 1000,
    email: null,
    observation: null,
    webhookUrl: null,
    isPublic: true,
    createdAt: new Date(),
    qrCodeUrl: null,
    qrCopyPaste: null,
    chargeCreated: true,
    expiresAt: new Date(Date.now() + 60_000),
    paidEndToEndId: null,
    paidAmountCents: null,
    paidAt: null,
    deadlineAt: null,
    refundReason: null,
    refunds: [],
    cancelledAt: null,
    eventSeq: 1,
    rev: 1,
    ...fields,
  };
}
