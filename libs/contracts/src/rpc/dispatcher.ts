import { z } from 'zod';
import { EventDetailSchema, EventListQuerySchema, EventListSchema, EventRedeliverySchema } from '../events-api';
import { WebhookDeliverySchema } from '../webhooks';
import { defineRpc } from './define-rpc';

/**
 * What the webhook dispatcher, which owns the delivery log, answers over NATS: the Events API (the
 * store always comes from the caller's token, never from the merchant's request) and the admin
 * CLI's webhook commands.
 */

const EventRequestSchema = z.object({ storeId: z.string(), eventId: z.string() });

export const WebhooksListReplySchema = z.object({
  paymentId: z.string(),
  deliveries: z.array(WebhookDeliverySchema),
});

export const DispatcherRpc = {
  eventsList: defineRpc('events.list', z.object({ storeId: z.string(), query: EventListQuerySchema }), EventListSchema),
  eventsGet: defineRpc('events.get', EventRequestSchema, EventDetailSchema),
  eventsRedeliver: defineRpc('events.redeliver', EventRequestSchema, EventRedeliverySchema),
  webhooksList: defineRpc('admin.webhooks.list', z.object({ paymentId: z.string().min(1) }), WebhooksListReplySchema),
  webhooksReplay: defineRpc(
    'admin.webhooks.replay',
    z.object({ eventId: z.string().min(1) }),
    z.object({ eventId: z.string(), status: z.literal('pending'), run: z.number().int() }),
  ),
} as const;
