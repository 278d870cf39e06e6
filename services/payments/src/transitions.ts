import type { PaymentEndCause, PaymentStatus } from '@pix/contracts';
import { statusChanges } from './metrics';
import type { OutboxMessage, PaymentDoc } from './model';
import { eventMessage } from './outbox';
import type { Change, PaymentStorage } from './payment-storage';
import { liveRefundOfPaidPix } from './refund-records';
import { canTransition } from './state-machine';

export type TransitionResult =
  | { changed: true; doc: PaymentDoc }
  | { changed: false; reason: 'not_found' | 'refused' | 'lost_race'; doc: PaymentDoc | null };

export interface TransitionOptions {
  /** Fields the change sets besides the status. */
  extra?: Partial<PaymentDoc>;
  /** Messages the new status owes besides its event (its deadline, a command to the PSP). */
  messages?: OutboxMessage[];
  /** What ended a payment that leaves pending without a Pix (its event carries it). */
  cause?: PaymentEndCause;
  /**
   * More of the same write, decided on the payment as changed (its eventSeq is the status change's,
   * so its own events number after it): what it sets and owes (the review refund records its refund
   * with the change).
   */
  with?: (changed: PaymentDoc) => Change;
  seen?: PaymentDoc;
}

/**
 * Moves a payment from `from` to `to` in one write that owes the payment.status_changed event (and
 * whatever `messages` the new status needs). A redelivered or late trigger finds the status already
 * changed and changes nothing ('lost_race'). The refund deadline of review is cleared unless
 * `extra` sets the new one.
 *
 * Once the paid Pix is being refunded, the money is on its way back to the customer: the only way
 * out of review is then not_approved, whatever the analysis says later.
 */
export async function transition(
  store: PaymentStorage,
  id: string,
  from: PaymentStatus,
  to: PaymentStatus,
  options: TransitionOptions = {},
): Promise<TransitionResult> {
  if (!canTransition(from, to)) return { changed: false, reason: 'refused', doc: null };
  const result = await store.write<'refused' | 'lost_race'>(
    id,
    (current) => {
      if (current.status !== from) return { skip: 'lost_race' };
      if (from === 'review' && to !== 'not_approved' && liveRefundOfPaidPix(current)) return { skip: 'refused' };
      const sequence = current.eventSeq + 1;
      const set: Partial<PaymentDoc> = { deadlineAt: null, ...options.extra, status: to, eventSeq: sequence };
      const changed = { ...current, ...set };
      const event = eventMessage(changed, sequence, from, options.cause);
      const more = options.with?.(changed);
      return {
        set: { ...set, ...more?.set },
        messages: [event, ...(options.messages ?? []), ...(more?.messages ?? [])],
      };
    },
    options.seen,
  );
  if (!result.written) return { changed: false, reason: result.reason, doc: result.doc };
  statusChanges.inc({ from, to });
  return { changed: true, doc: result.doc };
}
