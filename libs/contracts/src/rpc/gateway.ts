import { z } from 'zod';
import { RequestLivemodeSchema } from '../modes';
import { defineRpc } from './define-rpc';

/** What the gateway, which owns stores and tokens, answers over NATS: the admin CLI's store commands. */

/**
 * A new store: `token` and `webhookSecret` are its test ones (what every walkthrough and script
 * reads), `liveToken` and `liveWebhookSecret` its live ones (modes.ts).
 */
const StoreCreateReplySchema = z.object({
  storeId: z.string(),
  token: z.string(),
  webhookSecret: z.string(),
  liveToken: z.string(),
  liveWebhookSecret: z.string(),
});

/** A store whose unexpired webhook secrets include ones that do not open (under a retired key, or altered). */
const StoreWithUnreadableSecretsSchema = z.object({
  storeId: z.string(),
  /** The keys those secrets name. */
  kids: z.array(z.string()),
  /** In a mode, none of its secrets opens: that mode's deliveries wait, unsigned and unsent, until a rotation. */
  none: z.boolean(),
});

/** A pass over every store: how many, and those whose secrets do not all open (the first 1000 named). */
const SecretsPassSchema = z.object({
  stores: z.number().int(),
  unreadableStores: z.number().int(),
  unreadable: z.array(StoreWithUnreadableSecretsSchema),
});

/** The operator's store and token commands: the admin CLI alone calls them. */
const forOperator = { server: 'gateway', callers: ['admin'] } as const;

export const GatewayRpc = {
  storesCreate: defineRpc(
    'admin.stores.create',
    z.object({ name: z.string().min(1) }),
    StoreCreateReplySchema,
    forOperator,
  ),
  storesSetActive: defineRpc(
    'admin.stores.set-active',
    z.object({ storeId: z.string(), active: z.boolean() }),
    z.object({ storeId: z.string(), active: z.boolean() }),
    forOperator,
  ),
  tokensIssue: defineRpc(
    'admin.tokens.issue',
    z.object({
      storeId: z.string(),
      livemode: RequestLivemodeSchema,
      expiresInSeconds: z.number().int().positive().optional(),
    }),
    z.object({ token: z.string(), livemode: z.boolean(), expiresAt: z.string().nullable() }),
    forOperator,
  ),
  tokensRevoke: defineRpc(
    'admin.tokens.revoke',
    z.object({ token: z.string() }),
    z.object({ revoked: z.literal(true) }),
    forOperator,
  ),
  /**
   * A new webhook secret; the previous ones keep signing for 24 hours, except those that do not
   * open (`droppedUnreadable`: under a retired key, they can sign nothing).
   */
  storesRotateSecret: defineRpc(
    'admin.stores.rotate-secret',
    z.object({ storeId: z.string(), livemode: RequestLivemodeSchema }),
    z.object({
      storeId: z.string(),
      livemode: z.boolean(),
      webhookSecret: z.string(),
      droppedUnreadable: z.number().int(),
    }),
    forOperator,
  ),
  /**
   * Seals again every store's webhook secrets that are in clear (written before sealing), in the
   * v1 format or under a key SECRETS_KEYS no longer has first: after a key rotation, before the
   * old key is removed. Secrets that do not open are left as they are, their stores listed.
   */
  storesResealSecrets: defineRpc(
    'admin.stores.reseal-secrets',
    z.object({}),
    SecretsPassSchema.extend({ resealed: z.number().int() }),
    forOperator,
  ),
  /**
   * Reads every store's webhook secrets and reports the stores whose secrets do not all open, and
   * how many a re-seal would write; changes nothing. Before removing a key from SECRETS_KEYS.
   */
  storesCheckSecrets: defineRpc(
    'admin.stores.check-secrets',
    z.object({}),
    SecretsPassSchema.extend({ toReseal: z.number().int() }),
    forOperator,
  ),
  /**
   * The dispatcher's read of a store's webhook secrets (it caches them). Whoever holds a secret can
   * forge that store's webhooks: the dispatcher alone may ask. When none of them opens, the answer
   * is the domain error webhook_secrets_unreadable. Each mode has its own secrets: a live
   * payment's deliveries are signed with the live ones.
   */
  webhookSecrets: defineRpc(
    'stores.webhook-secrets',
    z.object({ storeId: z.string(), livemode: RequestLivemodeSchema }),
    z.object({ secrets: z.array(z.string()) }),
    { server: 'gateway', callers: ['webhook-dispatcher'] },
  ),
} as const;
