import { centsToBrl, DomainError, type PaymentPublicView } from '@pix/contracts';
import type { PaymentStorage } from './payment-storage';

/**
 * The hosted payment page's read (payments.public-view): one payment by id alone, no store, since
 * the customer has only the page's address (an unguessable UUID). It answers only what the page may
 * show or needs, never the e-mail, observation or webhookUrl.
 */
export async function publicView(store: PaymentStorage, id: string): Promise<PaymentPublicView> {
  const doc = await store.byId(id);
  if (!doc) throw new DomainError('payment_not_found');
  return {
    id: doc._id,
    storeId: doc.storeId,
    status: doc.status,
    amount: centsToBrl(doc.amountCents),
    qrCopyPaste: doc.qrCopyPaste,
    expiresAt: doc.expiresAt.toISOString(),
    pixReceived: doc.paidEndToEndId !== null,
    cancelled: doc.cancelledAt !== null,
    sequence: doc.eventSeq,
  };
}
