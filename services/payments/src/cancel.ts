import { DomainError, type Payment } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import type { PaymentStorage, StoreScope } from './payment-storage';
import { toPayment } from './presenter';
import { cancelCommand } from './refund-messages';
import { transition } from './transitions';

/**
 * The merchant cancels a pending payment: not_approved at once (with payment.status_changed, its
 * cause `cancel`), in one write that owes the command removing its charge at the PSP, which the
 * adapter sends right after and retries while the PSP is away. A payment paid or expired meanwhile
 * is no longer pending and is refused; a Pix that lands after the cancel goes back to its payer.
 */
export async function cancelPayment(
  deps: { store: PaymentStorage; logger: Logger },
  scope: StoreScope,
  id: string,
): Promise<Payment> {
  const seen = await deps.store.forStore(scope, id);
  if (!seen) throw new DomainError('payment_not_found');
  const result = await transition(deps.store, id, 'pending', 'not_approved', {
    extra: { cancelledAt: new Date() },
    messages: [cancelCommand(seen)],
    cause: 'cancel',
    seen,
  });
  if (!result.changed) {
    throw new DomainError('cancel_not_pending', { status: result.doc?.status ?? seen.status });
  }
  deps.logger.info({ paymentId: id }, 'payment cancelled by the merchant');
  return toPayment(result.doc);
}
