import express, { type Router } from 'express';
import type { NatsConnection } from '@nats-io/transport-node';
import { DispatcherRpc, ErrorMessages, isEventId } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { AuthedLocals } from './auth';
import { methodNotAllowed, sendError } from './http-errors';
import { validateEventsQuery } from './validation';

/** Both path forms, as for the payments. */
export const EVENT_PATHS = ['/api-public/events', '/public-api/v1/events'] as const;

/**
 * The Events API, mounted under both path forms behind requireStore: the store's webhook events
 * from the dispatcher's delivery log, one event with its attempts, and a redelivery. The store is
 * always the token's; an id that is not an event id is 404 without asking.
 */
export function eventsRouter(nc: NatsConnection, rpcTimeoutMs: number): Router {
  const router = express.Router();

  router.get('/', async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    const validated = validateEventsQuery(req.query as Record<string, unknown>);
    if (!validated.ok) return sendError(res, 400, validated.message);
    const list = await callRpc(nc, DispatcherRpc.eventsList, { storeId, query: validated.value }, rpcTimeoutMs);
    res.status(200).json(list);
  });

  router.get('/:eventId', async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    const { eventId } = req.params;
    if (!isEventId(eventId)) return sendError(res, 404, ErrorMessages.eventNotFound);
    const event = await callRpc(nc, DispatcherRpc.eventsGet, { storeId, eventId }, rpcTimeoutMs);
    res.status(200).json(event);
  });

  router.post('/:eventId/redeliver', async (req, res) => {
    const { storeId } = res.locals as AuthedLocals;
    const { eventId } = req.params;
    if (!isEventId(eventId)) return sendError(res, 404, ErrorMessages.eventNotFound);
    const started = await callRpc(nc, DispatcherRpc.eventsRedeliver, { storeId, eventId }, rpcTimeoutMs);
    res.status(200).json(started);
  });

  router.all('/', methodNotAllowed('GET'));
  router.all('/:eventId', methodNotAllowed('GET'));
  router.all('/:eventId/redeliver', methodNotAllowed('POST'));
  return router;
}
