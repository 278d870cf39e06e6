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
  type SandboxPayOptions,
} from '@pix/contracts';
import { callRpc } from '@pix/messaging';

/**
 * One sandbox action on a store's payment, as the public routes and the dashboard's buttons take
 * it: the store must own the payment (payments answers 404 otherwise); then the adapter's sandbox
 * PSP acts and calls the adapter back exactly as a PSP does.
 */
export async function sandboxAct<D extends RpcDefinition>(
  nc: NatsConnection,
  rpcTimeoutMs: number,
  storeId: string,
  id: string,
  action: D,
  payload: (payment: Payment) => RpcRequest<D>,
): Promise<RpcReply<D>> {
  const payment = await callRpc(nc, PaymentsRpc.get, { storeId, id }, rpcTimeoutMs);
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
