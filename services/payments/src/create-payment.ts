import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AdapterRpc,
  DomainError,
  txidFor,
  type CreateChargeReply,
  type CreatePaymentRequest,
  type Payment,
} from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import type { Config } from './config';
import { paymentsCreated, pspChargeFailures } from './metrics';
import type { OutboxMessage, PaymentDoc } from './model';
import { dueMessage, eventMessage } from './outbox';
import { isLive, type NewPayment, type PaymentStorage } from './payment-storage';
import { toPayment } from './presenter';

export interface CreateDeps {
  nc: NatsConnection;
  config: Config;
  logger: Logger;
  store: PaymentStorage;
}

/** The first retry of a charge the PSP did not take at create time. */
export const FIRST_CHARGE_RETRY_MS = 1000;

export function qrCodeUrlFor(config: Config, paymentId: string): string {
  return new URL(`/public-api/v1/qrcodes/${paymentId}.png`, config.PUBLIC_BASE_URL).toString();
}

/** Asks the adapter for the charge; null when the PSP cannot be reached now. */
export async function requestCharge(
  deps: Pick<CreateDeps, 'nc' | 'config' | 'logger'>,
  doc: Pick<PaymentDoc, '_id' | 'txid' | 'amountCents' | 'observation' | 'expiresAt' | 'livemode'>,
): Promise<CreateChargeReply | null> {
  const expiresInSeconds = Math.max(1, Math.round((doc.expiresAt.getTime() - Date.now()) / 1000));
  try {
    return await callRpc(
      deps.nc,
      AdapterRpc.createCharge,
      {
        txid: doc.txid,
        paymentId: doc._id,
        amountCents: doc.amountCents,
        expiresInSeconds,
        description: doc.observation,
        // The mode's own PSP connection: a live payment is charged at the live PSP only.
        livemode: isLive(doc),
      },
      deps.config.PSP_TIMEOUT,
    );
  } catch (err) {
    deps.logger.warn({ err, paymentId: doc._id }, 'charge creation at the PSP failed; will retry in the background');
    pspChargeFailures.inc();
    return null;
  }
}

/**
 * Creates a payment. The charge is requested first so the stored payment and its payment.created
 * event carry the QR data; a PSP that does not answer never fails the create: the payment is stored
 * with null QR fields and a scheduled retry completes the charge. The expiry (the merchant's
 * expiresIn, or PIX_CHARGE_TTL) is scheduled with it.
 *
 * A create may be repeated: with a caller-chosen paymentId (the gateway's Idempotency-Key), a
 * repeat (a retry after a crash, or a concurrent duplicate) returns the payment the first one made.
 * The insert of the unique id decides which create wins, so there is one payment and one
 * payment.created event; a losing create finds the winner's payment, already stored. The PSP charge
 * is idempotent by txid, so a losing attempt's charge request is harmless.
 */
export async function createPayment(deps: CreateDeps, request: CreatePaymentRequest): Promise<Payment> {
  const { storeId, livemode, input, isPublic } = request;
  const id = request.paymentId ?? randomUUID();
  const createdAt = new Date();
  const base = {
    _id: id,
    txid: txidFor(id),
    amountCents: input.amountCents,
    observation: input.observation,
    // The merchant's expiresIn, or the platform's default: the charge's calendario.expiracao either way.
    expiresAt: new Date(
      createdAt.getTime() +
        (input.expiresInSeconds === null ? deps.config.PIX_CHARGE_TTL : input.expiresInSeconds * 1000),
    ),
  };
  const charge = await requestCharge(deps, { ...base, livemode });
  const doc: NewPayment = {
    ...base,
    storeId,
    livemode,
    status: 'pending',
    email: input.email,
    webhookUrl: input.webhookUrl,
    isPublic,
    createdAt,
    qrCodeUrl: charge ? qrCodeUrlFor(deps.config, id) : null,
    qrCopyPaste: charge?.qrCopyPaste ?? null,
    chargeCreated: charge !== null,
    paidEndToEndId: null,
    paidAmountCents: null,
    paidAt: null,
    deadlineAt: null,
    refundReason: null,
    refunds: [],
    cancelledAt: null,
    eventSeq: 1,
    rev: 1,
  };
  const messages: OutboxMessage[] = [
    eventMessage(doc, 1, null),
    dueMessage(id, 'expiry', doc.expiresAt, 'created'),
    ...(charge
      ? []
      : [
          dueMessage(id, 'charge', createdAt, 'created', {
            attempt: 1,
            at: new Date(Date.now() + FIRST_CHARGE_RETRY_MS),
          }),
        ]),
  ];
  if ((await deps.store.insert(doc, messages)) === 'exists') return theFirstCreate(deps, request);
  paymentsCreated.inc({ is_public: String(isPublic) });
  return toPayment(doc);
}

/** The payment a repeated create's first one made, which the insert found in its place. */
async function theFirstCreate(
  deps: CreateDeps,
  { storeId, livemode, paymentId }: CreatePaymentRequest,
): Promise<Payment> {
  if (paymentId === undefined) throw new Error('a new random payment id was taken');
  const existing = await deps.store.byId(paymentId);
  if (!existing) throw new Error(`payment ${paymentId} was refused as a duplicate but cannot be read`);
  if (existing.storeId !== storeId || isLive(existing) !== livemode) throw new DomainError('payment_not_found');
  return toPayment(existing);
}
