import type { NatsConnection } from '@nats-io/transport-node';
import {
  centsToBrl,
  ErrorMessages,
  PaymentPublicViewRequestSchema,
  QueueGroups,
  Subjects,
  type PaymentPublicView,
} from '@pix/contracts';
import { RpcFailure, serveRpc, type RpcServer } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { PaymentModel, type PaymentDoc } from './model';

type ViewFields = Pick<
  PaymentDoc,
  '_id' | 'storeId' | 'status' | 'amountCents' | 'qrCopyPaste' | 'expiresAt' | 'paidEndToEndId' | 'eventSeq'
>;

/**
 * The hosted payment page's read (payments.public-view): one payment by id alone, no store, since
 * the customer has only the page's address (an unguessable UUID). It selects only the fields the
 * page may show or needs, never the e-mail, observation or webhookUrl.
 */
export async function publicView(id: string): Promise<PaymentPublicView> {
  const doc = await PaymentModel.findById(id)
    .select({ storeId: 1, status: 1, amountCents: 1, qrCopyPaste: 1, expiresAt: 1, paidEndToEndId: 1, eventSeq: 1 })
    .lean<ViewFields>();
  if (!doc) throw new RpcFailure(404, ErrorMessages.paymentNotFound);
  return {
    id: doc._id,
    storeId: doc.storeId,
    status: doc.status,
    amount: centsToBrl(doc.amountCents),
    qrCopyPaste: doc.qrCopyPaste,
    expiresAt: doc.expiresAt.toISOString(),
    pixReceived: doc.paidEndToEndId !== null,
    sequence: doc.eventSeq,
  };
}

export function servePublicView(nc: NatsConnection, logger: Logger): RpcServer {
  const options = {
    subject: Subjects.paymentsPublicView,
    queue: QueueGroups.payments,
    schema: PaymentPublicViewRequestSchema,
    logger,
  };
  return serveRpc(nc, options, (req) => publicView(req.id));
}
