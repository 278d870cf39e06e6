import { randomUUID } from 'node:crypto';
import type { PixRefundSettledEvent } from '@pix/contracts';
import type { PaymentDoc, RefundRecord } from './model';
import type { Change } from './payment-storage';
import { refundEvent } from './refund-messages';
import { leftOfPixCents } from './refund-records';

/** A settlement of a devolução the PSP made on its own: one the adapter told with its amount. */
export type PspRefundSettlement = PixRefundSettledEvent & { amountCents: number };

/**
 * A devolução the PSP made on its own (a MED return after a fraud claim, or any other natureza),
 * told only when it settled, as a refund of the payment with origin `psp`: its record, already
 * settled as the PSP says, and the change that appends it with its two webhook events, next in the
 * payment's sequence (refund.created, as the refund began, then refund.succeeded or refund.failed).
 * Nothing goes to the PSP: it did the refund. Created and settled in one write, keyed by the PSP's
 * devolução id (the record's pspRefundId): the settlement told again finds it and changes nothing.
 *
 * `leftCents` is what was left to return of its Pix before it: a devolução larger than that is
 * recorded all the same (the money is gone, as the PSP says), and the caller flags it.
 */
export function pspRefund(
  doc: PaymentDoc,
  fact: PspRefundSettlement,
  outcome: 'succeeded' | 'failed',
  now = new Date(),
): { record: RefundRecord; change: Change; leftCents: number } {
  const settledAt = new Date(fact.settledAt);
  // The PSP tells no request time: the refund began when it settled, or when the platform heard of it if earlier.
  const createdAt = Number.isNaN(settledAt.getTime()) || settledAt > now ? now : settledAt;
  const created: RefundRecord = {
    id: randomUUID(),
    pspRefundId: fact.pspRefundId,
    endToEndId: fact.endToEndId,
    amountCents: fact.amountCents,
    status: 'pending',
    reason: null,
    origin: 'psp',
    nature: fact.nature ?? 'other',
    createdAt,
    settledAt: null,
    failureReason: null,
    rtrId: fact.rtrId,
  };
  // Pending, then settled once (refund-state-machine.ts), both in this one write.
  const record: RefundRecord = {
    ...created,
    status: outcome,
    settledAt: Number.isNaN(settledAt.getTime()) ? now : settledAt,
    failureReason: outcome === 'failed' ? (fact.failureReason ?? '') : null,
  };
  const sequence = doc.eventSeq + 1;
  return {
    record,
    leftCents: leftOfPixCents(doc, fact.endToEndId),
    change: {
      set: { refunds: [...doc.refunds, record], eventSeq: sequence + 1 },
      messages: [
        refundEvent(doc, created, 'refund.created', sequence),
        refundEvent(doc, record, outcome === 'succeeded' ? 'refund.succeeded' : 'refund.failed', sequence + 1),
      ],
    },
  };
}
