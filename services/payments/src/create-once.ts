import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, type CreatePaymentRequest, type Payment } from '@pix/contracts';
import { createPayment, type CreateDeps } from './create-payment';
import { toPayment } from './presenter';

/** How long a repeated create waits for a concurrent first one to finish storing the payment. */
const CONCURRENT_CREATE_WAIT_MS = 3_000;

/**
 * A create that may be repeated: with a caller-chosen paymentId (the gateway's Idempotency-Key), a
 * repeat (a retry after a crash, or a concurrent duplicate) returns the payment the first one made.
 * The unique ids decide which insert wins, so there is one payment and one payment.created event;
 * the PSP charge is idempotent by txid, so a losing attempt's charge request is harmless.
 */
export async function createPaymentOnce(deps: CreateDeps, request: CreatePaymentRequest): Promise<Payment> {
  const { storeId, input, isPublic, paymentId } = request;
  if (paymentId === undefined) {
    const created = await createPayment(deps, storeId, input, isPublic);
    if (!created) throw new Error('a new random payment id was taken');
    return created;
  }
  const existing = await deps.store.byId(paymentId);
  if (!existing) {
    const created = await createPayment(deps, storeId, input, isPublic, paymentId);
    if (created) return created;
  }
  // A concurrent first create may still be between claiming the id and storing the payment.
  const giveUpAt = Date.now() + CONCURRENT_CREATE_WAIT_MS;
  for (let doc = existing; ; doc = await deps.store.byId(paymentId)) {
    if (doc) {
      if (doc.storeId !== storeId) throw new DomainError('payment_not_found');
      return toPayment(doc);
    }
    // Its creator died after claiming the id: the claim lapses and a retry then creates it.
    if (Date.now() > giveUpAt) throw new FirstCreateUnfinished(paymentId);
    await sleep(50);
  }
}

/** The first create of this id has not stored its payment yet: temporary (a 503), a retry finds it. */
class FirstCreateUnfinished extends Error {
  readonly transient = true;
  constructor(paymentId: string) {
    super(`the first create of payment ${paymentId} has not finished`);
    this.name = 'FirstCreateUnfinished';
  }
}
