import express, { type RequestHandler, type Router } from 'express';
import typeis from 'type-is';
import type { NatsConnection } from '@nats-io/transport-node';
import { DomainError, ErrorMessages, PaymentsRpc } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { AuthedLocals } from './auth';
import { methodNotAllowed, sendError } from './http-errors';
import { claimPaymentId, isValidIdempotencyKey } from './idempotency';
import { isPaymentId, validateCreateBody, validateListQuery } from './validation';

/** The public payments API (spec 4), mounted under both path forms behind requireStore. */
export function paymentsRouter(nc: NatsConnection, rpcTimeoutMs: number): Router {
  const router = express.Router();

  // The content type is checked before the body is read, so a form post is told what is wrong with
  // it rather than that it is malformed JSON. The header itself is read (req.is() answers null for
  // a request without a body), so an empty JSON request is validated like `{}`.
  const requireJson: RequestHandler = (req, res, next) => {
    if (typeis.is(req.get('content-type') ?? '', ['application/json']) !== 'application/json') {
      return sendError(res, 400, ErrorMessages.unsupportedMediaType);
    }
    next();
  };
  const json = express.json({ limit: '64kb', strict: false, type: () => true });

  router.post('/', requireJson, json, async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    const validated = validateCreateBody(req.body ?? {});
    if (!validated.ok) return sendError(res, 400, validated.message);
    const key = req.get('idempotency-key');
    let paymentId: string | undefined;
    if (key !== undefined) {
      if (!isValidIdempotencyKey(key)) return sendError(res, 400, ErrorMessages.idempotencyKeyInvalid);
      const claim = await claimPaymentId(storeId, key, validated.value);
      if (!claim.ok) throw new DomainError('idempotency_key_reused');
      paymentId = claim.paymentId;
    }
    const payment = await callRpc(
      nc,
      PaymentsRpc.create,
      { storeId, input: validated.value, isPublic: true, paymentId },
      rpcTimeoutMs,
    );
    res.status(200).json(payment);
  });

  router.get('/', async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    const validated = validateListQuery(req.query as Record<string, unknown>);
    if (!validated.ok) return sendError(res, 400, validated.message);
    const list = await callRpc(nc, PaymentsRpc.list, { storeId, query: validated.value }, rpcTimeoutMs);
    res.status(200).json(list);
  });

  router.get('/:id', async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    if (!isPaymentId(req.params.id)) return sendError(res, 404, ErrorMessages.paymentNotFound);
    const payment = await callRpc(nc, PaymentsRpc.get, { storeId, id: req.params.id }, rpcTimeoutMs);
    res.status(200).json(payment);
  });

  router.all('/', methodNotAllowed('GET', 'POST'));
  router.all('/:id', methodNotAllowed('GET'));
  return router;
}
