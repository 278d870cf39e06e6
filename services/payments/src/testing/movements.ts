import type { BalanceTransactionType } from '@pix/contracts';
import type { BalanceMovement } from '../model';

/**
 * A movement of a store's test-mode money for the statement check's tests: its Pix, type and amount
 * (negative: money out, a merchant's refund), the `n`-th of its kind, dated `createdAt`.
 */
export function movementOf(
  type: BalanceTransactionType,
  endToEndId: string,
  amountCents: number,
  n: number,
  createdAt: Date,
): BalanceMovement {
  return {
    id: `payment-${endToEndId}:${type}:${n}`,
    storeId: 'store',
    livemode: false,
    type,
    amountCents,
    paymentId: `payment-${endToEndId}`,
    refundId: amountCents < 0 ? `refund-${n}` : null,
    endToEndId,
    origin: amountCents < 0 ? 'merchant' : null,
    nature: null,
    connection: 'test',
    createdAt,
  };
}
