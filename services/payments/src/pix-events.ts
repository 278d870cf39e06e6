import { PixPaidEventSchema, type PixPaidEvent } from '@pix/contracts';
import type { HandlerOutcome } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { PaymentModel, type PaymentDoc } from './model';
import { transition } from './transitions';

/**
 * A Pix payment the PSP confirmed. The exact amount approves the payment; any other amount sends
 * it to review. Idempotent: a redelivered confirmation (same endToEndId) or one for a payment no
 * longer pending changes nothing.
 */
export async function onPixPaid(raw: unknown, logger: Logger): Promise<HandlerOutcome> {
  const parsed = PixPaidEventSchema.safeParse(raw);
  if (!parsed.success) {
    logger.error({ issues: parsed.error.issues }, 'malformed pix.events.paid; dropped');
    return { ack: true };
  }
  const paid: PixPaidEvent = parsed.data;
  const doc = await PaymentModel.findOne({ txid: { $eq: paid.txid } }).lean<PaymentDoc>();
  if (!doc) {
    logger.warn({ txid: paid.txid }, 'pix payment for an unknown charge; ignored');
    return { ack: true };
  }
  if (doc.paidEndToEndId === paid.endToEndId || doc.status !== 'pending') {
    logger.info({ paymentId: doc._id, status: doc.status }, 'pix payment already handled');
    return { ack: true };
  }
  const to = paid.amountCents === doc.amountCents ? 'approved' : 'review';
  const result = await transition(doc._id, 'pending', to, {
    paidEndToEndId: paid.endToEndId,
    paidAmountCents: paid.amountCents,
  });
  if (!result.changed && result.reason === 'lost_race') {
    // Someone else changed the payment in between; look again with the fresh state.
    return { ack: false, retryInMs: 100 };
  }
  logger.info({ paymentId: doc._id, to, changed: result.changed }, 'pix payment applied');
  return { ack: true };
}
