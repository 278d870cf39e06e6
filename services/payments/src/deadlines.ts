import type { NatsConnection } from '@nats-io/transport-node';
import { AdapterRpc, refundIdFor, type CreateRefundReply, type PaymentDueKind } from '@pix/contracts';
import { callRpc, type HandlerOutcome } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { z } from 'zod';
import type { Config } from './config';
import { qrCodeUrlFor, requestCharge } from './create-payment';
import type { OutboxMessage, PaymentDoc, RefundRecord } from './model';
import { dueMessage, type DueMessage } from './outbox';
import type { PaymentStorage } from './payment-storage';
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
  kind: z.enum(['expiry', 'refund', 'charge'] satisfies PaymentDueKind[]),
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
  const delay = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** Math.min(due.attempt - 1, 16));
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
 * take. Each message names the deadline it was scheduled for; a payment that moved on since (paid,
 * refunded, a newer deadline) ignores it, so a stale or repeated message changes nothing. Any number
 * of replicas share the durable consumer, and every step is idempotent (conditional writes, a refund
 * id fixed per payment), so a message redelivered after a crash finishes the work without doing it
 * twice.
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
  }
}

async function expire(deps: DueDeps, due: DueMessage, doc: PaymentDoc): Promise<HandlerOutcome> {
  if (doc.status !== 'pending' || doc.expiresAt.toISOString() !== due.at) return ACK;
  const result = await transition(deps.store, doc._id, 'pending', 'not_approved', { seen: doc });
  if (result.changed) deps.logger.info({ paymentId: doc._id }, 'charge expired unpaid: payment not approved');
  return ACK;
}

/** Refunds the paid amount of a payment in review whose refund fell due, then not_approved. */
async function refund(deps: DueDeps, due: DueMessage, seen: PaymentDoc): Promise<HandlerOutcome> {
  const { logger, store } = deps;
  if (seen.status !== 'review' || seen.deadlineAt?.toISOString() !== due.at) return ACK;
  const { paidEndToEndId, paidAmountCents } = seen;
  if (!paidEndToEndId || !paidAmountCents) {
    logger.error({ paymentId: seen._id }, 'payment in review without a received Pix: nothing to refund');
    return ACK;
  }
  let doc = seen;
  if (!doc.refund) {
    const record: RefundRecord = {
      id: refundIdFor(doc._id),
      reason: doc.refundReason ?? 'review_timeout',
      requestedAt: new Date(),
      status: null,
      rtrId: null,
    };
    // Recorded before asking the PSP: from here on the analysis can no longer approve the payment.
    const recorded = await store.write<'moved_on'>(
      doc._id,
      (current) =>
        current.status === 'review' && !current.refund
          ? { set: { refund: record }, messages: [] }
          : { skip: 'moved_on' },
      doc,
    );
    if (!recorded.written) return ACK;
    doc = recorded.doc;
  }
  const record = doc.refund as RefundRecord;
  let reply: CreateRefundReply;
  try {
    reply = await callRpc(
      deps.nc,
      AdapterRpc.createRefund,
      { refundId: record.id, endToEndId: paidEndToEndId, amountCents: paidAmountCents },
      deps.config.REFUND_TIMEOUT,
    );
  } catch (err) {
    logger.warn(
      { err, paymentId: doc._id, refundId: record.id, attempt: due.attempt },
      'refund request failed; retried',
    );
    await retryLater(deps, due);
    return ACK;
  }
  const outcome: RefundRecord = { ...record, status: reply.status, rtrId: reply.rtrId };
  if (reply.status === 'failed') {
    await store.write<'moved_on'>(
      doc._id,
      (current) =>
        current.status === 'review'
          ? { set: { refund: outcome, deadlineAt: null }, messages: [] }
          : { skip: 'moved_on' },
      doc,
    );
    logger.error(
      { paymentId: doc._id, refundId: record.id },
      'the PSP refused the refund; the payment needs an operator',
    );
    return ACK;
  }
  const result = await transition(store, doc._id, 'review', 'not_approved', { extra: { refund: outcome }, seen: doc });
  if (result.changed)
    logger.info({ paymentId: doc._id, refund: outcome }, 'paid amount refunded: payment not approved');
  return ACK;
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
