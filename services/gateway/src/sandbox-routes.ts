import express, { type RequestHandler, type Router } from 'express';
import typeis from 'type-is';
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
import type { AuthedLocals } from './auth';
import { methodNotAllowed, sendError } from './http-errors';
import { isPaymentId, type Validated } from './validation';

/** Both path forms, as for the payments. */
export const SANDBOX_PATHS = ['/api-public/sandbox/payments', '/public-api/v1/sandbox/payments'] as const;

/** The optional body of pay: `{"amount": <brl>}`, another amount than the payment's (it goes to review). */
export function validateSandboxPayBody(body: unknown): Validated<number | undefined> {
  if (body === undefined) return { ok: true, value: undefined };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: ErrorMessages.bodyNotObject };
  }
  const { amount } = body as { amount?: unknown };
  if (amount === undefined || amount === null) return { ok: true, value: undefined };
  const cents = typeof amount === 'number' ? brlToCents(amount) : null;
  if (cents === null || cents <= 0 || cents > PIX_MAX_AMOUNT_CENTS) {
    return { ok: false, message: SandboxMessages.amountInvalid };
  }
  return { ok: true, value: cents };
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
 * records the Pix in one step instead of reading its charge first).
 */
export function payWith(amountCents: number | undefined): (payment: Payment) => RpcRequest<typeof SandboxRpc.pay> {
  return (payment) => ({ paymentId: payment.id, amountCents: amountCents ?? brlToCents(payment.amount) ?? undefined });
}

/**
 * The sandbox PSP over the public API, for a merchant's own code to drive a payment as a customer
 * would: pay (optionally another amount), review (paid and held for analysis), clear and reject
 * (the analysis ends). Mounted behind requireStore only when the adapter runs the sandbox PSP.
 * The store must own the payment (payments answers 404 otherwise); then the adapter's sandbox PSP
 * acts and calls the adapter back exactly as a PSP does, as the admin CLI's `sandbox` commands do.
 */
export function sandboxRouter(nc: NatsConnection, rpcTimeoutMs: number): Router {
  const router = express.Router();

  // A body is optional (an empty one is none); one that is there must be JSON.
  const optionalJson: RequestHandler = (req, res, next) => {
    const length = req.get('content-length');
    const hasBody = req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
    if (hasBody && typeis(req, ['application/json']) !== 'application/json') {
      return sendError(res, 400, ErrorMessages.unsupportedMediaType);
    }
    next();
  };
  const json = express.json({ limit: '64kb', strict: false, type: () => true });

  const act = <D extends RpcDefinition>(
    storeId: string,
    id: string,
    action: D,
    payload: (payment: Payment) => RpcRequest<D>,
  ) => sandboxAct(nc, rpcTimeoutMs, storeId, id, action, payload);

  router.post('/:id/pay', optionalJson, json, async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    const id = req.params.id;
    if (!isPaymentId(id)) return sendError(res, 404, ErrorMessages.paymentNotFound);
    const validated = validateSandboxPayBody(req.body);
    if (!validated.ok) return sendError(res, 400, validated.message);
    const paid = await act(storeId, id, SandboxRpc.pay, payWith(validated.value));
    res.status(200).json(paid);
  });

  const analyses = [
    ['review', SandboxRpc.review],
    ['clear', SandboxRpc.clear],
    ['reject', SandboxRpc.reject],
  ] as const;
  for (const [action, definition] of analyses) {
    router.post(`/:id/${action}`, async (req, res) => {
      const { storeId } = res.locals as AuthedLocals;
      const id = req.params.id;
      if (!isPaymentId(id)) return sendError(res, 404, ErrorMessages.paymentNotFound);
      const done = await act(storeId, id, definition, () => ({ paymentId: id }));
      res.status(200).json(done);
    });
  }
  for (const action of ['pay', ...analyses.map(([name]) => name)])
    router.all(`/:id/${action}`, methodNotAllowed('POST'));
  return router;
}
