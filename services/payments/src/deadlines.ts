import type { NatsConnection } from '@nats-io/transport-node';
import { AdapterRpc, PlatformRefundReasons, type PaymentDueKind, type ReadChargeReply } from '@pix/contracts';
import { callRpc, retryDelay, type HandlerOutcome } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { z } from 'zod';
import type { Config } from './config';
import { onDisputeReminder } from './dispute-flows';
import { refundsCreated } from './metrics';
import { qrCodeUrlFor, requestCharge } from './create-payment';
import type { OutboxMessage, PaymentDoc } from './model';
import { dueMessage, type DueMessage } from './outbox';
import { isLive, type Change, type PaymentStorage } from './payment-storage';
import { refundCommand } from './refund-messages';
import { liveRefundOfPaidPix, refundableCents } from './refund-records';
import { newRefund } from './refunds';
import { transition } from './transitions';

export interface DueDeps {
  nc: NatsConnection;
  config: Config;
  logger: Logger;
  store: PaymentStorage;
  publish: (messages: OutboxMessage[]) => Promise<void>;
}

const ACK: HandlerOutcome = { ack: true };
const MAX_RETRY_DELAY_MS = 60_000;

const DueMessageSchema = z.object({
  paymentId: z.string(),
  kind: z.enum(['expiry', 'refund', 'charge', 'dispute_reminder'] satisfies PaymentDueKind[]),
  at: z.string(),
  attempt: z.number().int().min(1),
});

/**
 * Work that failed for want of the PSP is tried again later by another scheduled message, with
 * exponential backoff (1 s, 2 s, 4 s ... up to a minute), rather than held unacknowledged: a long
 * outage then piles nothing up on the consumer.
 */
async function retryLater(deps: DueDeps, due: DueMessage): Promise<void> {
  const attempt = due.attempt + 1;
  const delay = retryDelay(due.attempt, 1000, MAX_RETRY_DELAY_MS);
  const deadline = new Date(due.at);
  const retry = dueMessage(due.paymentId, due.kind, deadline, `${deadline.getTime()}-${attempt}`, {
    attempt,
    at: new Date(Date.now() + delay),
  });
  await deps.publish([retry]);
}

/**
 * A payment's scheduled work, delivered by JetStream when it falls due (message schedules): the
 * charge's expiry, the automatic refund of a payment in review, a retry of a charge the PSP did not
 * take, a reminder of a dispute's deadline (disputes.ts). Each message names the deadline it was
 * scheduled for; a payment that moved on since (paid,
 * refunded, a newer deadline) ignores it, so a stale or repeated message changes nothing. Any number
 * of replicas share the durable consumer, and every step is idempotent (conditional writes; a
 * refund's command, recorded with it, names its devolução the same on every try), so a message
 * redelivered after a crash finishes the work without doing it twice.
 */
export async function onDue(deps: DueDeps, raw: unknown): Promise<HandlerOutcome> {
  const parsed = DueMessageSchema.safeParse(raw);
  if (!parsed.success) {
    deps.logger.error({ issues: parsed.error.issues }, 'malformed scheduled message; dropped');
    return ACK;
  }
  const due = parsed.data;
  const doc = await deps.store.byId(due.paymentId);
  if (!doc) return ACK;
  switch (due.kind) {
    case 'expiry':
      return expire(deps, due, doc);
    case 'refund':
      return refund(deps, due, doc);
    case 'charge':
      return completeCharge(deps, due, doc);
    case 'dispute_reminder':
      return onDisputeReminder(deps, doc, new Date(due.at));
  }
}

/**
 * A pending payment whose charge falls due expires, unless the PSP says its charge received a Pix:
 * the charge is read once first (the adapter tells each Pix it finds on the PIX stream, as a
 * callback would), so a payment whose callback was lost is approved rather than expired. A PSP that
 * cannot be read delays the expiry (tried again later); it never expires a charge it could not ask
 * about, nor one it says was paid.
 */
async function expire(deps: DueDeps, due: DueMessage, doc: PaymentDoc): Promise<HandlerOutcome> {
  if (doc.status !== 'pending' || doc.expiresAt.toISOString() !== due.at) return ACK;
  if (doc.chargeCreated) {
    const charge = await readCharge(deps, doc);
    if (!charge) {
      await retryLater(deps, due);
      return ACK;
    }
    if (charge.pixReceived > 0) {
      deps.logger.warn(
        { paymentId: doc._id, pixReceived: charge.pixReceived },
        'charge paid at the PSP when it fell due: its Pix decides, not the expiry',
      );
      // Looked at again later: a payment its Pix moved on is left alone then, one still pending is read again.
      await retryLater(deps, due);
      return ACK;
    }
  }
  const result = await transition(deps.store, doc._id, 'pending', 'not_approved', { cause: 'expiry', seen: doc });
  if (result.changed) deps.logger.info({ paymentId: doc._id }, 'charge expired unpaid: payment not approved');
  return ACK;
}

/**
 * The refund of the paid Pix that a payment leaving review owes, recorded with the change: a new
 * platform refund, or, for one requested before refunds were records of their own (or earlier by
 * this same step), its command again, which reads the PSP's record before sending anything.
 */
function reviewRefund(payment: PaymentDoc): Change {
  const live = liveRefundOfPaidPix(payment);
  if (live) return { set: {}, messages: [refundCommand(payment, live, 2)] };
  // What the PSP did not return on its own already (a MED return of the held Pix): usually all of it.
  const left = refundableCents(payment);
  if (left === 0) return { set: {}, messages: [] };
  const refund = newRefund(payment, {
    endToEndId: payment.paidEndToEndId as string,
    amountCents: left,
    reason:
      payment.refundReason === 'analysis_rejected'
        ? PlatformRefundReasons.analysisRejected
        : PlatformRefundReasons.reviewTimeout,
    origin: 'platform',
  });
  return refund ? refund.change : { set: {}, messages: [] };
}

/**
 * A payment in review whose refund fell due (REVIEW_TIMEOUT, or at once after the analysis rejected
 * its Pix) leaves review for not_approved in one write that records the refund of the paid Pix and
 * owes its command to the PSP: the money goes back however the PSP answers later (the refund's own
 * webhooks tell how it settled). A late "analysis cleared" then finds it no longer in review.
 */
async function refund(deps: DueDeps, due: DueMessage, seen: PaymentDoc): Promise<HandlerOutcome> {
  const { logger, store } = deps;
  if (seen.status !== 'review' || seen.deadlineAt?.toISOString() !== due.at) return ACK;
  if (!seen.paidEndToEndId || !seen.paidAmountCents) {
    logger.error({ paymentId: seen._id }, 'payment in review without a received Pix: nothing to refund');
    return ACK;
  }
  const result = await transition(store, seen._id, 'review', 'not_approved', { with: reviewRefund, seen });
  if (result.changed) {
    if (!liveRefundOfPaidPix(seen) && refundableCents(seen) > 0) refundsCreated.inc({ origin: 'platform' });
    logger.info(
      { paymentId: seen._id, cause: seen.refundReason ?? 'review_timeout' },
      'paid amount refunded: payment not approved',
    );
  }
  return ACK;
}

/** The charge as the PSP holds it, its Pix told; null when the adapter or the PSP cannot answer now. */
async function readCharge(deps: DueDeps, doc: PaymentDoc): Promise<ReadChargeReply | null> {
  try {
    return await callRpc(
      deps.nc,
      AdapterRpc.readCharge,
      { txid: doc.txid, paymentId: doc._id, livemode: isLive(doc) },
      deps.config.PSP_TIMEOUT,
    );
  } catch (err) {
    deps.logger.warn({ err, paymentId: doc._id }, 'charge not read at the PSP before its expiry; tried again later');
    return null;
  }
}

/** Completes a charge the PSP could not take at create time; the PSP call is idempotent by txid. */
async function completeCharge(deps: DueDeps, due: DueMessage, doc: PaymentDoc): Promise<HandlerOutcome> {
  if (doc.chargeCreated || doc.status !== 'pending') return ACK;
  const charge = await requestCharge(deps, doc);
  if (!charge) {
    await retryLater(deps, due);
    return ACK;
  }
  const completed = await deps.store.write<'done'>(
    doc._id,
    (current) =>
      current.chargeCreated
        ? { skip: 'done' }
        : {
            set: {
              chargeCreated: true,
              qrCopyPaste: charge.qrCopyPaste,
              qrCodeUrl: qrCodeUrlFor(deps.config, doc._id),
            },
            messages: [],
          },
    doc,
  );
  if (completed.written) {
    deps.logger.info({ paymentId: doc._id, attempts: due.attempt }, 'charge completed in the background');
  }
  return ACK;
}
