import type { CreatePaymentRequest, Payment } from '@pix/contracts';
import { createPayment, type CreateDeps } from './create-payment';
import { PaymentModel } from './model';
import { getPayment } from './queries';

/** MongoDB's duplicate-key error (the payment's _id or txid is taken). */
function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: unknown }).code === 11000;
}

/**
 * A create that may be repeated: with a caller-chosen paymentId, a repeat (a retry after a crash,
 * or a concurrent duplicate) returns the payment the first one made. The unique _id decides which
 * insert wins, so there is one payment and one payment.created event; the PSP charge is idempotent
 * by txid, so a losing attempt's charge request is harmless.
 */
export async function createPaymentOnce(deps: CreateDeps, request: CreatePaymentRequest): Promise<Payment> {
  const { storeId, input, isPublic, paymentId } = request;
  if (paymentId === undefined) return createPayment(deps, storeId, input, isPublic);
  if (await PaymentModel.exists({ _id: { $eq: paymentId } })) return getPayment(storeId, paymentId);
  try {
    return await createPayment(deps, storeId, input, isPublic, paymentId);
  } catch (err) {
    if (isDuplicateKey(err)) return getPayment(storeId, paymentId);
    throw err;
  }
}
