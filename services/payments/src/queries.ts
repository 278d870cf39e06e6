import { ErrorMessages, type ListQuery, type Payment, type PaymentList } from '@pix/contracts';
import { RpcFailure } from '@pix/messaging';
import { PaymentModel, type PaymentDoc } from './model';
import { toPayment } from './presenter';

/** A store's payment; another store's, or an unknown id, is the same 404. */
export async function getPayment(storeId: string, id: string): Promise<Payment> {
  const doc = await PaymentModel.findOne({ _id: { $eq: id }, storeId: { $eq: storeId } }).lean<PaymentDoc>();
  if (!doc) throw new RpcFailure(404, ErrorMessages.paymentNotFound);
  return toPayment(doc);
}

/** A page of a store's payments, newest first (createdAt, then id, descending). */
export async function listPayments(storeId: string, query: ListQuery): Promise<PaymentList> {
  const filter: Record<string, unknown> = { storeId: { $eq: storeId } };
  if (query.status) filter.status = { $eq: query.status };
  const [docs, total] = await Promise.all([
    PaymentModel.find(filter)
      .sort({ createdAt: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .lean<PaymentDoc[]>(),
    PaymentModel.countDocuments(filter),
  ]);
  return { items: docs.map(toPayment), page: query.page, limit: query.limit, total };
}

/** The copy-and-paste code behind a payment's public QR image (no store: the image is public). */
export async function qrCopyPasteOf(id: string): Promise<string | null> {
  const doc = await PaymentModel.findById(id).select({ qrCopyPaste: 1 }).lean<Pick<PaymentDoc, 'qrCopyPaste'>>();
  if (!doc) throw new RpcFailure(404, ErrorMessages.paymentNotFound);
  return doc.qrCopyPaste;
}
