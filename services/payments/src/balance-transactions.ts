import { modeName, type BalanceTransactionType } from '@pix/contracts';
import type { BalanceMovement, OutboxMessage, PaymentDoc, RefundRecord } from './model';

/**
 * The movements of a store's money a payment write makes (docs/decisions/balance-transactions.md),
 * read off the payment before and after the change, so that every writer (a Pix received, a refund
 * settled, a late Pix, a PSP's own return) records its movement without knowing of it, and the
 * movement rides in the same atomic command as the change: it is an entry of the payment's outbox,
 * which the publish path writes into `balance_transactions` (once, by its id).
 *
 * - The paid Pix arrives (paidEndToEndId set): `pix_received`, +paid, dated when it settled.
 * - A Pix arrives for a payment no longer pending (a platform refund of another Pix is recorded):
 *   `late_pix_received`, +its amount.
 * - A refund succeeds (recorded succeeded, or settled so): −its amount, as `med_return` for a MED
 *   nature, `late_pix_returned` for another Pix than the paid one, `refund` otherwise. A refund that
 *   fails moved nothing.
 *
 * Each movement's id is its payment, type and Pix or refund: a decision made again on a fresh read
 * makes the same one, and recording it twice keeps one.
 */
export function movementsOfChange(before: PaymentDoc, after: PaymentDoc, now: Date): BalanceMovement[] {
  const moved: BalanceMovement[] = [];
  if (!before.paidEndToEndId && after.paidEndToEndId && after.paidAmountCents) {
    moved.push(movement(after, 'pix_received', after.paidAmountCents, after.paidEndToEndId, null, after.paidAt ?? now));
  }
  const earlier = new Map(before.refunds.map((refund) => [refund.id, refund]));
  for (const refund of after.refunds) {
    const was = earlier.get(refund.id);
    if (!was && refund.origin === 'platform' && refund.endToEndId !== after.paidEndToEndId) {
      moved.push(movement(after, 'late_pix_received', refund.amountCents, refund.endToEndId, null, refund.createdAt));
    }
    if (refund.status === 'succeeded' && was?.status !== 'succeeded') {
      moved.push(
        movement(
          after,
          outType(after, refund),
          -refund.amountCents,
          refund.endToEndId,
          refund,
          refund.settledAt ?? now,
        ),
      );
    }
  }
  return moved;
}

function outType(doc: PaymentDoc, refund: RefundRecord): BalanceTransactionType {
  if (refund.nature === 'med_fraud' || refund.nature === 'med_operational') return 'med_return';
  return refund.endToEndId === doc.paidEndToEndId ? 'refund' : 'late_pix_returned';
}

function movement(
  doc: PaymentDoc,
  type: BalanceTransactionType,
  amountCents: number,
  endToEndId: string,
  refund: RefundRecord | null,
  createdAt: Date,
): BalanceMovement {
  const livemode = doc.livemode === true;
  return {
    id: `${doc._id}:${type}:${refund?.id ?? endToEndId}`,
    storeId: doc.storeId,
    livemode,
    type,
    amountCents,
    paymentId: doc._id,
    refundId: refund?.id ?? null,
    endToEndId,
    origin: refund?.origin ?? null,
    nature: refund?.nature ?? null,
    connection: modeName(livemode),
    createdAt,
  };
}

/** Where a movement goes from the outbox: the collection, not a JetStream subject. */
export const MOVEMENT_DESTINATION = 'balance_transactions';

/** A movement as a message its write owes: recorded by the publish path (withMovements). */
export function movementMessage(moved: BalanceMovement): OutboxMessage {
  return { subject: MOVEMENT_DESTINATION, msgId: moved.id, movement: moved };
}

/**
 * The publish path with movements: the write's JetStream messages go to `publish`, its movements
 * to `record` (an upsert by id each, so a movement published again is recorded once), both before
 * the outbox lets go of them.
 */
export function withMovements(
  publish: (messages: OutboxMessage[]) => Promise<void>,
  record: (movements: BalanceMovement[]) => Promise<void>,
): (messages: OutboxMessage[]) => Promise<void> {
  return async (messages) => {
    const movements = messages.flatMap((m) => (m.movement ? [m.movement] : []));
    const others = messages.filter((m) => !m.movement);
    await Promise.all([others.length > 0 && publish(others), movements.length > 0 && record(movements)]);
  };
}
