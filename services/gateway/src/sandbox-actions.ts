import type { NatsConnection } from '@nats-io/transport-node';
import {
  brlToCents,
  DomainError,
  PaymentsRpc,
  SandboxRpc,
  type Payment,
  type RpcDefinition,
  type RpcReply,
  type RpcRequest,
  type SandboxMedOptions,
  type SandboxPayOptions,
} from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { PaymentViews } from './payment-views';

/** The store and mode a sandbox action speaks for: the token's (or the dashboard session's). */
export interface SandboxScope {
  storeId: string;
  livemode: boolean;
}

/** What a sandbox action reaches: the bus, and the payments' read model for the store's payment. */
export interface SandboxBackends {
  nc: NatsConnection;
  rpcTimeoutMs: number;
  views: Pick<PaymentViews, 'read'>;
}

/**
 * One sandbox action on a store's payment, as the public routes and the dashboard's buttons take
 * it: the store must own the payment in the token's mode (no view of it, and payments answers 404);
 * then the adapter's sandbox PSP acts and calls the adapter back exactly as a PSP does. A live token
 * is answered 404, as if the route did not exist for it: a live payment is paid by the payer's
 * bank, never by the platform.
 *
 * The payment is read as a get reads it, from its view first: an action needs its owner and its
 * amount, which no later change alters, and a pay under load was otherwise a request to payments
 * and a database read more than the confirmation it stands in for.
 */
export async function sandboxAct<D extends RpcDefinition>(
  { nc, rpcTimeoutMs, views }: SandboxBackends,
  scope: SandboxScope,
  id: string,
  action: D,
  payload: (payment: Payment) => RpcRequest<D>,
): Promise<RpcReply<D>> {
  if (scope.livemode) throw new DomainError('payment_not_found');
  const payment = (await views.read(scope, id)) ?? (await callRpc(nc, PaymentsRpc.get, { ...scope, id }, rpcTimeoutMs));
  try {
    return await callRpc(nc, action, payload(payment), rpcTimeoutMs);
  } catch (err) {
    // The payment is the store's, so a PSP without its charge has not created it yet (PSP down at create).
    if (err instanceof DomainError && err.code === 'charge_not_found') throw new DomainError('charge_missing');
    throw err;
  }
}

/**
 * What a pay asks of the PSP: the amount given, or the payment's own (with the amount known, the PSP
 * records the Pix in one step instead of reading its charge first), whether it is a late Pix, and
 * whether its callback is lost.
 */
export function payWith(options: SandboxPayOptions): (payment: Payment) => RpcRequest<typeof SandboxRpc.pay> {
  return (payment) => ({
    paymentId: payment.id,
    amountCents: options.amountCents ?? brlToCents(payment.amount) ?? undefined,
    ...(options.late && { late: true }),
    ...(options.dropCallback && { dropCallback: true }),
  });
}

/** What a MED return asks of the PSP: an amount (all that is left of the Pix when absent) and its nature. */
export function medWith(options: SandboxMedOptions): (payment: Payment) => RpcRequest<typeof SandboxRpc.med> {
  return (payment) => ({ paymentId: payment.id, amountCents: options.amountCents, nature: options.nature });
}
