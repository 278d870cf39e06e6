import { DomainError, type ListQuery, type Payment, type PaymentList } from '@pix/contracts';
import type { PaymentStorage, StoreScope } from './payment-storage';
import { toPayment } from './presenter';

/** A store's payment in the token's mode; another store's or mode's, or an unknown id, is the same 404. */
export async function getPayment(store: PaymentStorage, scope: StoreScope, id: string): Promise<Payment> {
  const doc = await store.forStore(scope, id);
  if (!doc) throw new DomainError('payment_not_found');
  return toPayment(doc);
}

/** A page of a store's payments in the token's mode, newest first (createdAt, then id, descending). */
export async function listPayments(store: PaymentStorage, scope: StoreScope, query: ListQuery): Promise<PaymentList> {
  const { docs, total } = await store.list(scope, query);
  return { items: docs.map(toPayment), page: query.page, limit: query.limit, total };
}

/** The copy-and-paste code behind a payment's public QR image (no store: the image is public). */
export async function qrCopyPasteOf(store: PaymentStorage, id: string): Promise<string | null> {
  const doc = await store.byId(id);
  if (!doc) throw new DomainError('payment_not_found');
  return doc.qrCopyPaste;
}
