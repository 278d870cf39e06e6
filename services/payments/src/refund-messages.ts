import { Subjects, type CancelCommand, type EventType, type PaymentEvent, type RefundCommand } from '@pix/contracts';
import { traceCarrier } from '@pix/messaging';
import type { OutboxMessage, PaymentState, RefundRecord } from './model';
import { owedEvent } from './outbox';
import { isLive } from './payment-storage';
import { toRefund } from './presenter';

type RefundEventType = Extract<EventType, `refund.${string}`>;

/** A refund's webhook event (its fields, `event` and the store), in the payment's sequence. */
export function refundEvent(
  doc: Pick<PaymentState, '_id' | 'storeId' | 'webhookUrl'>,
  refund: RefundRecord,
  type: RefundEventType,
  sequence: number,
): OutboxMessage {
  const body = { event: type, ...toRefund(doc, refund), storeId: doc.storeId } as PaymentEvent['body'];
  return owedEvent(doc, sequence, body);
}

/**
 * The command that sends a refund to the PSP, owed by the write that records the refund. Its id is
 * the devolução's and the try's, so publishing it again (the relay) is harmless; `attempt` > 1 makes
 * the adapter read the PSP's record before it sends anything.
 */
export function refundCommand(
  doc: Pick<PaymentState, '_id' | 'txid' | 'livemode'>,
  refund: RefundRecord,
  attempt = 1,
): OutboxMessage {
  const body: RefundCommand = {
    txid: doc.txid,
    attempt,
    livemode: isLive(doc),
    paymentId: doc._id,
    refundId: refund.id,
    pspRefundId: refund.pspRefundId,
    endToEndId: refund.endToEndId,
    amountCents: refund.amountCents,
    description: refund.reason,
    accepted: false,
  };
  return {
    subject: Subjects.pixCommand('refund'),
    msgId: `refund:${refund.pspRefundId}:${attempt}`,
    body,
    trace: traceCarrier(),
  };
}

/** The command that removes a cancelled payment's charge at the PSP. */
export function cancelCommand(doc: Pick<PaymentState, '_id' | 'txid' | 'livemode'>): OutboxMessage {
  const body: CancelCommand = { txid: doc.txid, attempt: 1, livemode: isLive(doc), paymentId: doc._id };
  return { subject: Subjects.pixCommand('cancel'), msgId: `cancel:${doc.txid}`, body, trace: traceCarrier() };
}
