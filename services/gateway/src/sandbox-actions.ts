import type { NatsConnection } from '@nats-io/transport-node';
import {
  brlToCents,
  DomainError,
  ErrorMessages,
  PaymentsRpc,
  PIX_MAX_AMOUNT_CENTS,
  SandboxMessages,
  SandboxRpc,
  type Payment,
  type RpcDefinition,
  type RpcReply,
  type RpcRequest,
} from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { Validated } from './validation';

/** What a pay asks: another amount than the payment's (it goes to review), a late Pix, a lost callback. */
export interface SandboxPayOptions {
  amountCents: number | undefined;
  late: boolean;
  dropCallback: boolean;
}

/**
 * The optional body of pay: `{"amount": <brl>, "late": true, "dropCallback": true}`. `late`: a new
 * Pix even when the charge can no longer be paid (paid, expired, cancelled), which goes back to its
 * payer. `dropCallback`: the PSP receives the Pix but never calls back; reconciliation finds it.
 */
export function validateSandboxPayBody(body: unknown): Validated<SandboxPayOptions> {
  if (body === undefined) return { ok: true, value: { amountCents: undefined, late: false, dropCallback: false } };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: ErrorMessages.bodyNotObject };
  }
  const { amount, late, dropCallback } = body as { amount?: unknown; late?: unknown; dropCallback?: unknown };
  let amountCents: number | undefined;
  if (amount !== undefined && amount !== null) {
    const cents = typeof amount === 'number' ? brlToCents(amount) : null;
    if (cents === null || cents <= 0 || cents > PIX_MAX_AMOUNT_CENTS) {
      return { ok: false, message: SandboxMessages.amountInvalid };
    }
    amountCents = cents;
  }
  if (late !== undefined && late !== null && typeof late !== 'boolean') {
    return { ok: false, message: SandboxMessages.lateInvalid };
  }
  if (dropCallback !== undefined && dropCallback !== null && typeof dropCallback !== 'boolean') {
    return { ok: false, message: SandboxMessages.dropCallbackInvalid };
  }
  return { ok: true, value: { amountCents, late: late === true, dropCallback: dropCallback === true } };
}

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
