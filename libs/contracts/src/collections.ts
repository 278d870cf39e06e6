/**
 * The platform's collections and the fields each is read or written by with a top-level equality
 * filter on a hot path (a request, a consumer, a background step). It is the one list the local
 * stack turns into indexes on FerretDB/PostgreSQL, which pushes down only top-level equality on
 * scalar fields (`_jsonb->'field' @> value`) and serves it only from a GIN expression index on that
 * field (FerretDB issue #4646). On MongoDB each service's schema declares its own compound indexes
 * for the same queries. A hot query on a field missing here scans its whole collection locally.
 */
export const EqualityIndexedFields = {
  payments: ['_id', 'storeId', 'txid'],
  payment_intents: ['_id', 'open'],
  stores: ['_id'],
  tokens: ['_id', 'storeId'],
  // expiresOn: the expiry day, purged by equality where TTL indexes are missing (@pix/runtime retention).
  idempotency_keys: ['_id', 'expiresOn'],
  // storeId (and type): the Events API's list; eventId: one event's attempts.
  // checkOn: the minute the stall check looks at a pending delivery.
  webhook_deliveries: ['_id', 'paymentId', 'storeId', 'type', 'checkOn', 'expiresOn'],
  webhook_attempts: ['_id', 'paymentId', 'eventId', 'expiresOn'],
  webhook_sweeps: ['_id'],
  sandbox_psp_cobs: ['_id'],
  // Keyed by txid (one Pix per charge); refunds find it by endToEndId; a restarted adapter resumes
  // the callbacks not yet acknowledged (notified: false).
  sandbox_psp_pix: ['_id', 'endToEndId', 'notified'],
  sandbox_psp_analyses: ['_id', 'notified'],
  sandbox_psp_refunds: ['_id'],
} as const satisfies Record<string, readonly string[]>;

export type CollectionName = keyof typeof EqualityIndexedFields;
