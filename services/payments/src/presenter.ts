import { centsToBrl, type Payment } from '@pix/contracts';
import type { PaymentState } from './model';

/** The public shape of a payment (spec 2.1); optional fields are null when absent. */
export function toPayment(doc: PaymentState): Payment {
  return {
    id: doc._id,
    status: doc.status,
    amount: centsToBrl(doc.amountCents),
    storeId: doc.storeId,
    createdAt: doc.createdAt.toISOString(),
    webhookUrl: doc.webhookUrl,
    observation: doc.observation,
    email: doc.email,
    qrCodeUrl: doc.qrCodeUrl,
    qrCopyPaste: doc.qrCopyPaste,
    isPublic: doc.isPublic,
  };
}
