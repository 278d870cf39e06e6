import type { PaymentStatus } from '@pix/contracts';
import { statusChanges } from './metrics';
import type { OutboxMessage, PaymentDoc } from './model';
import { eventMessage } from './outbox';
import type { PaymentStorage } from './payment-storage';
import { canTransition } from './state-machine';

export type TransitionResult =
  | { changed: true; doc: PaymentDoc }
  | { changed: false; reason: 'not_found' | 'refused' | 'lost_race'; doc: PaymentDoc | null };

/**
 * Moves a payment from `from` to `to` in one write that owes the payment.status_changed event (and
 * whatever `schedules` the new status needs). A redelivered or late trigger finds the status already
 * changed and changes nothing ('lost_race'). The refund deadline of review is cleared unless
 * `extra` sets the new one.
 *
 * Once a refund has been requested for a payment in review, the money is on its way back to the
 * customer: the only way out of review is then not_approved, whatever the analysis says later.
 */
export async function transition(
  store: PaymentStorage,
  id: string,
  from: PaymentStatus,
  to: PaymentStatus,
  options: { extra?: Partial<PaymentDoc>; schedules?: OutboxMessage[]; seen?: PaymentDoc } = {},
): Promise<TransitionResult> {
  if (!canTransition(from, to)) return { changed: false, reason: 'refused', doc: null };
  const result = await store.write<'refused' | 'lost_race'>(
    id,
    (current) => {
      if (current.status !== from) return { skip: 'lost_race' };
      if (from === 'review' && to !== 'not_approved' && current.refund) return { skip: 'refused' };
      const set: Partial<PaymentDoc> = {
        deadlineAt: null,
        ...options.extra,
        status: to,
        eventSeq: current.eventSeq + 1,
      };
      const event = eventMessage({ ...current, ...set }, current.eventSeq + 1, from);
      return { set, messages: [event, ...(options.schedules ?? [])] };
    },
    options.seen,
  );
  if (!result.written) return { changed: false, reason: result.reason, doc: result.doc };
  statusChanges.inc({ from, to });
  return { changed: true, doc: result.doc };
}
