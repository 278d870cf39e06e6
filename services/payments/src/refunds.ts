import { randomUUID } from 'node:crypto';
import {
  DomainError,
  MAX_MERCHANT_REFUNDS,
  MAX_REFUNDS_PER_CHARGE,
  PixRefundSettledEventSchema,
  PlatformRefundReasons,
  REFUND_WINDOW_MS,
  modeName,
  refundPspId,
  type CreateRefundInput,
  type PixPaidEvent,
  type PixRefundSettledEvent,
  type Refund,
  type RefundList,
  type RefundOrigin,
} from '@pix/contracts';
import type { HandlerOutcome } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { pspRefundsAboveLeft, refundsCreated, refundSettlementsUnknownCharge, refundsSettled } from './metrics';
import { ofPaymentsMode } from './fact-mode';
import type { PaymentDoc, RefundRecord } from './model';
import type { Change, PaymentStorage, StoreScope } from './payment-storage';
import { toRefund } from './presenter';
import { pspRefund } from './psp-refunds';
import { refundCommand, refundEvent } from './refund-messages';
import { refundableCents } from './refund-records';
import { canSettleRefund } from './refund-state-machine';

export interface RefundDeps {
  logger: Logger;
  store: PaymentStorage;
}

const ACK: HandlerOutcome = { ack: true };

/** What a new refund is: which Pix, how much, why, and who asked. */
export interface RefundAsked {
  id?: string;
  endToEndId: string;
  amountCents: number;
  reason: string | null;
  origin: RefundOrigin;
}

/**
 * A new refund of a Pix of `doc`, numbered after its refunds (its PSP id holds the number), and the
 * change that records it: the refund appended, and what it owes (its refund.created event, next in
 * the payment's sequence, and the command that sends it to the PSP). Null when the payment has every
 * refund number taken.
 */
export function newRefund(
  doc: PaymentDoc,
  asked: RefundAsked,
  now = new Date(),
): { record: RefundRecord; change: Change } | null {
  if (doc.refunds.length >= MAX_REFUNDS_PER_CHARGE) return null;
  const record: RefundRecord = {
    id: asked.id ?? randomUUID(),
    pspRefundId: refundPspId(doc.txid, doc.refunds.length),
    endToEndId: asked.endToEndId,
    amountCents: asked.amountCents,
    status: 'pending',
    reason: asked.reason,
    origin: asked.origin,
    createdAt: now,
    settledAt: null,
    failureReason: null,
    rtrId: null,
  };
  const sequence = doc.eventSeq + 1;
  return {
    record,
    change: {
      set: { refunds: [...doc.refunds, record], eventSeq: sequence },
      messages: [refundEvent(doc, record, 'refund.created', sequence), refundCommand(doc, record)],
    },
  };
}

type MerchantRefusal =
  | 'refund_not_approved'
  | 'refund_window_closed'
  | 'refund_limit_reached'
  | 'refund_above_left'
  | 'refund_dispute_open'
  | 'exists';

/** Why a merchant's refund of `doc` is refused now, if it is (the order of the checks is the answer's). */
function merchantRefusal(doc: PaymentDoc, amountCents: number | null, now: Date): MerchantRefusal | null {
  if (doc.status !== 'approved' || !doc.paidEndToEndId) return 'refund_not_approved';
  // Payments approved before paidAt was kept count from their creation: a little earlier, never later.
  const paidAt = doc.paidAt ?? doc.createdAt;
  if (now.getTime() - paidAt.getTime() > REFUND_WINDOW_MS) return 'refund_window_closed';
  // The PSP holds the money until it decides the payer's claim (disputes.ts).
  if (doc.dispute?.status === 'open') return 'refund_dispute_open';
  if (doc.refunds.filter((refund) => refund.origin === 'merchant').length >= MAX_MERCHANT_REFUNDS) {
    return 'refund_limit_reached';
  }
  const left = refundableCents(doc);
  if (left === 0 || (amountCents ?? left) > left) return 'refund_above_left';
  return null;
}

/**
 * A merchant's refund of an approved payment: one conditional write checks what is left of the
 * paid Pix and records the refund with its event and its command to the PSP, so of two refunds that
 * race for the same money exactly one is taken (the other decides again on the payment as it is,
 * and is refused). `refundId` (the gateway's Idempotency-Key) makes it repeatable: the same id
 * answers the refund it made.
 */
export async function createRefund(
  deps: RefundDeps,
  request: StoreScope & { paymentId: string; refundId: string; input: CreateRefundInput },
): Promise<Refund> {
  const { paymentId, refundId, input } = request;
  const seen = await deps.store.forStore(request, paymentId);
  if (!seen) throw new DomainError('payment_not_found');
  let created: RefundRecord | undefined;
  const result = await deps.store.write<MerchantRefusal>(
    paymentId,
    (doc) => {
      if (doc.refunds.some((refund) => refund.id === refundId)) return { skip: 'exists' };
      const now = new Date();
      const refusal = merchantRefusal(doc, input.amountCents, now);
      if (refusal) return { skip: refusal };
      const refund = newRefund(
        doc,
        {
          id: refundId,
          endToEndId: doc.paidEndToEndId as string,
          amountCents: input.amountCents ?? refundableCents(doc),
          reason: input.reason,
          origin: 'merchant',
        },
        now,
      );
      if (!refund) return { skip: 'refund_limit_reached' };
      created = refund.record;
      return refund.change;
    },
    seen,
  );
  if (result.written) {
    const record = created as RefundRecord;
    refundsCreated.inc({ origin: 'merchant' });
    deps.logger.info(
      { paymentId, refundId, pspRefundId: record.pspRefundId, amountCents: record.amountCents },
      'refund requested',
    );
    return toRefund(result.doc, record);
  }
  const { doc } = result;
  if (!doc) throw new DomainError('payment_not_found');
  const existing = doc.refunds.find((refund) => refund.id === refundId);
  if (existing) return toRefund(doc, existing);
  if (result.reason === 'not_found' || result.reason === 'exists') throw new DomainError('payment_not_found');
  throw new DomainError(
    result.reason,
    result.reason === 'refund_above_left' ? { leftCents: String(refundableCents(doc)) } : {},
  );
}

/**
 * A Pix that arrived for a payment no longer pending (approved, expired, cancelled, in review or
 * refused): there is nothing to apply it to, so it goes back to its payer in full, as a platform
 * refund. Once per endToEndId: a redelivered fact finds its refund recorded and changes nothing.
 * The payment's status and refundedAmount stay as they are (the refund returns another Pix).
 */
export async function returnLatePix(deps: RefundDeps, seen: PaymentDoc, pix: PixPaidEvent): Promise<HandlerOutcome> {
  let created: RefundRecord | undefined;
  const result = await deps.store.write<'paid_by_it' | 'pending' | 'returned' | 'full'>(
    seen._id,
    (doc) => {
      if (doc.paidEndToEndId === pix.endToEndId) return { skip: 'paid_by_it' };
      if (doc.status === 'pending') return { skip: 'pending' };
      if (doc.refunds.some((refund) => refund.endToEndId === pix.endToEndId)) return { skip: 'returned' };
      const refund = newRefund(doc, {
        endToEndId: pix.endToEndId,
        amountCents: pix.amountCents,
        reason: PlatformRefundReasons.latePix,
        origin: 'platform',
      });
      if (!refund) return { skip: 'full' };
      created = refund.record;
      return refund.change;
    },
    seen,
  );
  const line = { paymentId: seen._id, endToEndId: pix.endToEndId, amountCents: pix.amountCents };
  if (result.written) {
    refundsCreated.inc({ origin: 'platform' });
    deps.logger.warn(
      { ...line, status: result.doc.status, refundId: created?.id },
      'pix for a payment no longer pending: returned to its payer',
    );
    return ACK;
  }
  // Pending again cannot be (no transition leads back there); a decision on a stale read looks again.
  if (result.reason === 'pending') return { ack: false, retryInMs: 100 };
  if (result.reason === 'full')
    deps.logger.error(line, 'pix for a payment no longer pending: no refund number left; needs an operator');
  return ACK;
}

/**
 * The PSP settled a refund (pix.events.refunded or refund_failed): the refund moves as its table
 * allows (refund-state-machine.ts) in one write with its webhook event. A settlement of a devolução
 * the payment never asked for (a MED return, under an id of the PSP's) becomes a refund of origin
 * psp, created and settled in one write (psp-refunds.ts). A settlement told again, or one for a
 * refund already settled, changes nothing: the refund is found by the PSP's devolução id.
 */
export async function onRefundSettled(
  deps: RefundDeps,
  raw: unknown,
  outcome: 'succeeded' | 'failed',
): Promise<HandlerOutcome> {
  const parsed = PixRefundSettledEventSchema.safeParse(raw);
  if (!parsed.success) {
    deps.logger.error({ issues: parsed.error.issues }, 'malformed refund settlement; dropped');
    return ACK;
  }
  const fact: PixRefundSettledEvent = parsed.data;
  const seen = await deps.store.byTxid(fact.txid);
  if (!seen) {
    // Money went back from the receiver's account (a MED return, say) with no payment to show it on.
    const connection = modeName(fact.livemode);
    refundSettlementsUnknownCharge.inc({ connection });
    deps.logger.error(
      {
        connection,
        txid: fact.txid,
        endToEndId: fact.endToEndId,
        pspRefundId: fact.pspRefundId,
        amountCents: fact.amountCents,
        nature: fact.nature,
        outcome,
      },
      'refund settlement for a charge the platform does not know; needs an operator',
    );
    return ACK;
  }
  if (!ofPaymentsMode(seen, fact, deps.logger)) return ACK;
  let settled: RefundRecord | undefined;
  /** Set when the write records a devolução the PSP made on its own: what was left of its Pix before it. */
  let leftBeforePspRefund: number | undefined;
  const result = await deps.store.write<'unknown' | 'settled'>(
    seen._id,
    (doc) => {
      const index = doc.refunds.findIndex((refund) => refund.pspRefundId === fact.pspRefundId);
      const refund = doc.refunds[index];
      if (!refund) {
        // None of the platform's: a devolução the PSP made on its own, recorded with its settlement.
        if (fact.amountCents === undefined) return { skip: 'unknown' };
        const made = pspRefund(doc, { ...fact, amountCents: fact.amountCents }, outcome);
        settled = made.record;
        leftBeforePspRefund = made.leftCents;
        return made.change;
      }
      leftBeforePspRefund = undefined;
      if (!canSettleRefund(refund.status, outcome)) return { skip: 'settled' };
      settled = {
        ...refund,
        status: outcome,
        settledAt: new Date(fact.settledAt),
        failureReason: outcome === 'failed' ? (fact.failureReason ?? '') : null,
        rtrId: fact.rtrId ?? refund.rtrId,
      };
      const sequence = doc.eventSeq + 1;
      const type = outcome === 'succeeded' ? 'refund.succeeded' : 'refund.failed';
      return {
        set: { refunds: doc.refunds.with(index, settled), eventSeq: sequence },
        messages: [refundEvent(doc, settled, type, sequence)],
      };
    },
    seen,
  );
  if (!result.written) {
    if (result.reason === 'unknown') {
      // Told by an adapter from before settlements carried the devolução's amount: nothing to record it by.
      deps.logger.error(
        { paymentId: seen._id, pspRefundId: fact.pspRefundId, outcome },
        'settlement of a devolução the platform did not ask for, without its amount; needs an operator',
      );
    }
    return ACK;
  }
  if (!settled) return ACK;
  if (leftBeforePspRefund !== undefined) tellPspRefund(deps.logger, seen._id, settled, leftBeforePspRefund);
  refundsSettled.inc({ origin: settled.origin, status: outcome });
  const line = { paymentId: seen._id, refundId: settled.id, origin: settled.origin, amountCents: settled.amountCents };
  if (outcome === 'succeeded') deps.logger.info(line, 'refund succeeded');
  // The money is still here: a merchant sees refund.failed; the platform's own needs an operator.
  else deps.logger.error({ ...line, failureReason: settled.failureReason }, 'the PSP did not do the refund');
  return ACK;
}

/** Counts and logs a devolução the PSP made on its own, just recorded; one above what was left is flagged. */
function tellPspRefund(logger: Logger, paymentId: string, refund: RefundRecord, leftCents: number): void {
  refundsCreated.inc({ origin: 'psp' });
  const line = {
    paymentId,
    refundId: refund.id,
    pspRefundId: refund.pspRefundId,
    endToEndId: refund.endToEndId,
    nature: refund.nature,
    amountCents: refund.amountCents,
    status: refund.status,
  };
  if (refund.status === 'succeeded' && refund.amountCents > leftCents) {
    pspRefundsAboveLeft.inc({ nature: refund.nature ?? 'other' });
    logger.error(
      { ...line, leftCents },
      'the PSP returned more than was left to refund of the Pix on its own; recorded as the PSP says, needs an operator',
    );
    return;
  }
  logger.warn(line, 'the PSP returned a Pix on its own; recorded as a refund of its payment');
}

/** A store's payment's refunds, newest first. */
export async function listRefunds(store: PaymentStorage, scope: StoreScope, paymentId: string): Promise<RefundList> {
  const doc = await store.forStore(scope, paymentId);
  if (!doc) throw new DomainError('payment_not_found');
  return { items: [...doc.refunds].reverse().map((refund) => toRefund(doc, refund)) };
}

/** One refund of a store's payment. */
export async function getRefund(
  store: PaymentStorage,
  scope: StoreScope,
  paymentId: string,
  refundId: string,
): Promise<Refund> {
  const doc = await store.forStore(scope, paymentId);
  if (!doc) throw new DomainError('payment_not_found');
  const refund = doc.refunds.find((r) => r.id === refundId);
  if (!refund) throw new DomainError('refund_not_found');
  return toRefund(doc, refund);
}
