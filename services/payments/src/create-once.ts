import { DomainError, type CreatePaymentRequest, type Payment } from '@pix/contracts';
import { createPayment, type CreateDeps } from './create-payment';
import { toPayment } from './presenter';

/**
 * A create that may be repeated: with a caller-chosen paymentId (the gateway's Idempotency-Key), a
 * repeat (a retry after a crash, or a concurrent duplicate) returns the payment the first one made.
 * The insert of the unique id decides which create wins, so there is one payment and one
 * payment.created event; a losing create finds the winner's payment, already stored. The PSP charge
 * is idempotent by txid, so a losing attempt's charge request is harmless.
 */
export async function createPaymentOnce(deps: CreateDeps, request: CreatePaymentRequest): Promise<Payment> {
  const { storeId, input, isPublic, paymentId } = request;
  const created = await createPayment(deps, storeId, input, isPublic, paymentId);
  if (created) return created;
  if (paymentId === undefined) throw new Error('a new random payment id was taken');
  const existing = await deps.store.byId(paymentId);
  if (!existing) throw new Error(`payment ${paymentId} was refused as a duplicate but cannot be read`);
  if (existing.storeId !== storeId) throw new DomainError('payment_not_found');
  return toPayment(existing);
}
