import type { PaymentStatus } from '@pix/contracts';
import { statusChanges } from './metrics';
import { PaymentModel, type PaymentDoc } from './model';
import { outboxEntry } from './outbox';
import { withPaymentLock } from './payment-lock';
import { canTransition } from './state-machine';

export type TransitionResult =
  | { changed: true; doc: PaymentDoc }
  | { changed: false; reason: 'not_found' | 'refused' | 'lost_race'; doc: PaymentDoc | null };

/**
 * Moves a payment from `from` to `to` in one conditional update that also stores the
 * payment.status_changed event in the outbox. A redelivered or late trigger finds the status
 * already changed and changes nothing. The deadline of the old status is cleared unless `extra`
 * sets the new one.
 *
 * Once a refund has been requested for a payment in review, the money is on its way back to the
 * customer: the only way out of review is then not_approved, whatever the analysis says later.
 */
export async function transition(
  id: string,
  from: PaymentStatus,
  to: PaymentStatus,
  extra: Partial<PaymentDoc> = {},
): Promise<TransitionResult> {
  if (!canTransition(from, to)) return { changed: false, reason: 'refused', doc: null };
  return withPaymentLock(id, () => apply(id, from, to, extra));
}

async function apply(
  id: string,
  from: PaymentStatus,
  to: PaymentStatus,
  extra: Partial<PaymentDoc>,
): Promise<TransitionResult> {
  const current = await PaymentModel.findById(id).lean<PaymentDoc>();
  if (!current) return { changed: false, reason: 'not_found', doc: null };
  if (current.status !== from) return { changed: false, reason: 'lost_race', doc: current };
  if (from === 'review' && to !== 'not_approved' && current.refund) {
    return { changed: false, reason: 'refused', doc: current };
  }

  const next: PaymentDoc = { ...current, ...extra, status: to };
  const sequence = current.eventSeq + 1;
  const { eventId, entry } = outboxEntry(next, sequence, from);
  const guard = from === 'review' && to !== 'not_approved' ? { refund: null } : {};
  const updated = await PaymentModel.findOneAndUpdate(
    { _id: id, status: from, eventSeq: current.eventSeq, ...guard },
    {
      $set: { deadlineAt: null, ...extra, status: to, eventSeq: sequence, [`outbox.${eventId}`]: entry },
      $inc: { outboxPending: 1 },
    },
    { new: true },
  ).lean<PaymentDoc>();
  if (!updated) return { changed: false, reason: 'lost_race', doc: current };
  statusChanges.inc({ from, to });
  return { changed: true, doc: updated };
}
