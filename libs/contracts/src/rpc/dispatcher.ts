import { z } from 'zod';
import { EventDetailSchema, EventListSchema, EventRedeliverySchema } from '../events-api';
import { EventListQuerySchema } from '../requests';
import { PAYMENT_WEBHOOK_STATES } from '../dashboard';
import { ReapplyFactsReplySchema, RefusedFactsReplySchema, RefusedFactsRequestSchema } from '../signed-facts';
import { WebhookDeliverySchema } from '../webhooks';
import { RequestLivemodeSchema } from '../modes';
import { defineRpc } from './define-rpc';

/**
 * What the webhook dispatcher, which owns the delivery log, answers over NATS: the Events API (the
 * store always comes from the caller's token, never from the merchant's request) and the admin
 * CLI's webhook commands.
 */

/** A store's events in one mode (modes.ts): the caller's token says which. */
const scope = { storeId: z.string(), livemode: RequestLivemodeSchema };

const EventRequestSchema = z.object({ ...scope, eventId: z.string() });

export const WebhooksListReplySchema = z.object({
  paymentId: z.string(),
  deliveries: z.array(WebhookDeliverySchema),
});

/** The most payments the dashboard asks about at once: one page of its list. */
export const MAX_PAYMENT_IDS = 200;

/** How each asked payment's webhooks stand; a payment without deliveries is left out. */
export const PaymentWebhookStatesReplySchema = z.object({
  states: z.array(z.object({ paymentId: z.string(), state: z.enum(PAYMENT_WEBHOOK_STATES) })),
});

/** One endpoint (a webhookUrl) and how the deliveries to it stand, for events recorded since `since`. */
export const EndpointStatsSchema = z.object({
  url: z.string(),
  deliveries: z.number().int(),
  delivered: z.number().int(),
  pending: z.number().int(),
  /** Pending after at least one failed attempt: being retried. */
  failing: z.number().int(),
  dead: z.number().int(),
  attempts: z.number().int(),
});
export type EndpointStats = z.infer<typeof EndpointStatsSchema>;

export const EndpointStatsReplySchema = z.object({
  since: z.string(),
  endpoints: z.array(EndpointStatsSchema),
  /** The deliveries read were cut at the bound: the stats cover the newest ones only. */
  truncated: z.boolean(),
  read: z.number().int(),
});
export type EndpointStatsReply = z.infer<typeof EndpointStatsReplySchema>;

/** The Events API and the dashboard, behind the gateway's authentication of the store. */
const forGateway = { server: 'webhook-dispatcher', callers: ['gateway'] } as const;
/** The admin CLI's webhook commands. */
const forOperator = { server: 'webhook-dispatcher', callers: ['admin'] } as const;

export const DispatcherRpc = {
  eventsList: defineRpc(
    'events.list',
    z.object({ ...scope, query: EventListQuerySchema }),
    EventListSchema,
    forGateway,
  ),
  eventsGet: defineRpc('events.get', EventRequestSchema, EventDetailSchema, forGateway),
  eventsRedeliver: defineRpc('events.redeliver', EventRequestSchema, EventRedeliverySchema, forGateway),
  /** The dashboard's list: whether each payment of a page has a webhook pending, failing or dead. */
  paymentWebhookStates: defineRpc(
    'events.payment-states',
    z.object({ ...scope, paymentIds: z.array(z.string()).max(MAX_PAYMENT_IDS) }),
    PaymentWebhookStatesReplySchema,
    forGateway,
  ),
  /** The dashboard's webhooks page: the store's deliveries per endpoint since an instant (24 h ago). */
  endpointStats: defineRpc(
    'events.endpoint-stats',
    z.object({ ...scope, since: z.iso.datetime({ precision: 3 }) }),
    EndpointStatsReplySchema,
    forGateway,
  ),
  webhooksList: defineRpc(
    'admin.webhooks.list',
    z.object({ paymentId: z.string().min(1) }),
    WebhooksListReplySchema,
    forOperator,
  ),
  webhooksReplay: defineRpc(
    'admin.webhooks.replay',
    z.object({ eventId: z.string().min(1) }),
    z.object({ eventId: z.string(), status: z.literal('pending'), run: z.number().int() }),
    forOperator,
  ),
  /** The newest payment events the dispatcher refused (not signed by payments' key): no webhook went out. */
  refusedFacts: defineRpc(
    'admin.webhooks.refused-facts',
    RefusedFactsRequestSchema,
    RefusedFactsReplySchema,
    forOperator,
  ),
  /** After a key fix, sends the webhooks of the refused payment events that verify now. */
  reapplyFacts: defineRpc('admin.webhooks.reapply-facts', z.object({}), ReapplyFactsReplySchema, forOperator),
} as const;
