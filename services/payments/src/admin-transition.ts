import { DomainError, INTERNAL_STATUSES, type PaymentStatus } from '@pix/contracts';
import type { PaymentStorage } from './payment-storage';
import { canTransition } from './state-machine';
import { transition } from './transitions';

const ADMIN_TARGETS: readonly PaymentStatus[] = INTERNAL_STATUSES;
const ATTEMPTS = 3;

/**
 * `admin payment transition`: an operator moves a payment to an internal status (settlement,
 * withdrawal, receipt, internal rejection) through the same state machine and the same conditional
 * update as every other change, so it emits payment.status_changed like any of them. The public
 * statuses are reached only through the lifecycle (PSP, expiry, review), never by hand.
 */
export async function adminTransition(
  store: PaymentStorage,
  paymentId: string,
  to: PaymentStatus,
): Promise<{ paymentId: string; previousStatus: PaymentStatus; status: PaymentStatus }> {
  if (!ADMIN_TARGETS.includes(to)) throw new DomainError('status_not_admin', { to });
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const doc = await store.byId(paymentId);
    if (!doc) throw new DomainError('payment_not_found');
    if (!canTransition(doc.status, to)) throw new DomainError('transition_not_allowed', { from: doc.status, to });
    const result = await transition(store, paymentId, doc.status, to, { seen: doc });
    if (result.changed) return { paymentId, previousStatus: doc.status, status: to };
    if (result.reason === 'refused') throw new DomainError('transition_not_allowed', { from: doc.status, to });
  }
  throw new DomainError('transition_contended');
}
