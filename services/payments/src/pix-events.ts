import {
  PixAnalysisEventSchema,
  PixPaidEventSchema,
  Subjects,
  type PixAnalysisEvent,
  type PixPaidEvent,
} from '@pix/contracts';
import type { HandlerOutcome } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import type { z } from 'zod';
import type { Config } from './config';
import { onDisputeFact } from './dispute-flows';
import { ofPaymentsMode } from './fact-mode';
import type { PaymentDoc } from './model';
import { dueMessage } from './outbox';
import type { PaymentStorage } from './payment-storage';
import { liveRefundOfPaidPix } from './refund-records';
import { onRefundSettled, returnLatePix } from './refunds';
import { transition, type TransitionResult } from './transitions';

export interface PixEventDeps {
  config: Config;
  logger: Logger;
  store: PaymentStorage;
}

const ACK: HandlerOutcome = { ack: true };
/** Someone else changed the payment in between: look again with the fresh state. */
const LOOK_AGAIN: HandlerOutcome = { ack: false, retryInMs: 100 };

function outcomeOf(result: TransitionResult): HandlerOutcome {
  return !result.changed && result.reason === 'lost_race' ? LOOK_AGAIN : ACK;
}

/** The payment whose charge a fact names, if it has one and is of the fact's mode. */
async function paymentOfCharge(
  deps: PixEventDeps,
  fact: { txid: string; livemode: boolean },
): Promise<PaymentDoc | null> {
  const doc = await deps.store.byTxid(fact.txid);
  if (!doc) {
    deps.logger.warn({ txid: fact.txid }, 'PSP event for an unknown charge; ignored');
    return null;
  }
  return ofPaymentsMode(doc, fact, deps.logger) ? doc : null;
}

/**
 * A Pix the PSP received for a payment's charge. Confirmed with the exact amount: approved. Another
 * amount, or held by the PSP for analysis: review, with the refund deadline REVIEW_TIMEOUT ahead.
 * Idempotent: a redelivered event (same endToEndId) changes nothing. Another Pix for a payment no
 * longer pending goes back to its payer (returnLatePix), once.
 */
async function onPixReceived(deps: PixEventDeps, pix: PixPaidEvent, held: boolean): Promise<HandlerOutcome> {
  const doc = await paymentOfCharge(deps, pix);
  if (!doc) return ACK;
  if (doc.paidEndToEndId === pix.endToEndId) {
    deps.logger.info({ paymentId: doc._id, status: doc.status }, 'pix payment already handled');
    return ACK;
  }
  // Another Pix for a charge already paid, expired or removed: nothing to apply it to.
  if (doc.status !== 'pending') return returnLatePix(deps, doc, pix);
  const approve = !held && pix.amountCents === doc.amountCents;
  const paid = { paidEndToEndId: pix.endToEndId, paidAmountCents: pix.amountCents, paidAt: new Date(pix.paidAt) };
  const refundAt = new Date(Date.now() + deps.config.REVIEW_TIMEOUT);
  const result = approve
    ? await transition(deps.store, doc._id, 'pending', 'approved', { extra: paid, seen: doc })
    : await transition(deps.store, doc._id, 'pending', 'review', {
        extra: { ...paid, deadlineAt: refundAt },
        messages: [dueMessage(doc._id, 'refund', refundAt, 'review')],
        seen: doc,
      });
  deps.logger.info({ paymentId: doc._id, held, changed: result.changed }, 'pix payment applied');
  // Another Pix got there first: this one is a late one now, and goes back.
  if (!result.changed && result.reason === 'lost_race' && result.doc) return returnLatePix(deps, result.doc, pix);
  return outcomeOf(result);
}

/** The PSP's analysis of the held Pix of a payment in review, if that is what the event is about. */
async function paymentInAnalysis(deps: PixEventDeps, event: PixAnalysisEvent): Promise<PaymentDoc | null> {
  const doc = await paymentOfCharge(deps, event);
  if (!doc) return null;
  if (doc.status !== 'review' || doc.paidEndToEndId !== event.endToEndId) {
    deps.logger.info(
      { paymentId: doc._id, status: doc.status },
      'analysis result for a payment not in review; ignored',
    );
    return null;
  }
  return doc;
}

/** The analysis cleared the Pix: approved, unless the refund has already been requested. */
async function onAnalysisCleared(deps: PixEventDeps, event: PixAnalysisEvent): Promise<HandlerOutcome> {
  const doc = await paymentInAnalysis(deps, event);
  if (!doc) return ACK;
  const result = await transition(deps.store, doc._id, 'review', 'approved', { seen: doc });
  if (!result.changed && result.reason === 'refused') {
    deps.logger.warn({ paymentId: doc._id }, 'analysis cleared after the refund was requested; stays refunded');
  }
  return outcomeOf(result);
}

/** The analysis rejected the Pix: the refund falls due now (a scheduled message due at once). */
async function onAnalysisRejected(deps: PixEventDeps, event: PixAnalysisEvent): Promise<HandlerOutcome> {
  const doc = await paymentInAnalysis(deps, event);
  if (!doc) return ACK;
  const now = new Date();
  const result = await deps.store.write<'moved_on'>(
    doc._id,
    (current) =>
      current.status !== 'review' || liveRefundOfPaidPix(current) || current.refundReason === 'analysis_rejected'
        ? { skip: 'moved_on' }
        : {
            set: { refundReason: 'analysis_rejected', deadlineAt: now },
            messages: [dueMessage(doc._id, 'refund', now, 'rejected')],
          },
    doc,
  );
  deps.logger.info({ paymentId: doc._id, changed: result.written }, 'analysis rejected: refund due');
  return ACK;
}

function parsed<S extends z.ZodType>(schema: S, raw: unknown, logger: Logger): z.infer<S> | null {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  logger.error({ issues: result.error.issues }, 'malformed PSP event; dropped');
  return null;
}

/** Routes one fact of the PIX stream to its handler; unknown subjects are acknowledged and ignored. */
export async function onPixEvent(deps: PixEventDeps, subject: string, raw: unknown): Promise<HandlerOutcome> {
  switch (subject) {
    case Subjects.pixPaid:
    case Subjects.pixReview: {
      const pix = parsed(PixPaidEventSchema, raw, deps.logger);
      return pix ? onPixReceived(deps, pix, subject === Subjects.pixReview) : ACK;
    }
    case Subjects.pixCleared:
    case Subjects.pixRejected: {
      const event = parsed(PixAnalysisEventSchema, raw, deps.logger);
      if (!event) return ACK;
      return subject === Subjects.pixCleared ? onAnalysisCleared(deps, event) : onAnalysisRejected(deps, event);
    }
    case Subjects.pixRefunded:
      return onRefundSettled(deps, raw, 'succeeded');
    case Subjects.pixRefundFailed:
      return onRefundSettled(deps, raw, 'failed');
    case Subjects.pixDisputeOpened:
    case Subjects.pixDisputeClosed:
      return onDisputeFact(deps, raw);
    default:
      return ACK;
  }
}
