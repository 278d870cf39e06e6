import type { RefundStatus } from '@pix/contracts';

/**
 * Every allowed change of a refund's status (docs/design.md, "Money going back"), beside the
 * payment's own table (state-machine.ts). A refund is created `pending`; the PSP settles it once:
 * `succeeded` (API Pix DEVOLVIDO) or `failed` (NAO_REALIZADO). Anything else is refused, so a
 * settlement reported again, or late, changes nothing.
 */
export const REFUND_TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

export function canSettleRefund(from: RefundStatus, to: RefundStatus): boolean {
  return REFUND_TRANSITIONS[from].includes(to);
}
