import type { PaymentStatus } from '@pix/contracts';

/**
 * Every allowed status change (docs/design.md, "Payment states"). Anything not listed is refused.
 * Creation (none -> pending) is not a transition: it is the insert itself.
 */
export const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['approved', 'review', 'not_approved', 'rejected'],
  review: ['approved', 'not_approved', 'rejected'],
  approved: ['paid'],
  paid: ['withdrawal_processing'],
  withdrawal_processing: ['receipt_sent'],
  not_approved: [],
  receipt_sent: [],
  rejected: [],
};

export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}
