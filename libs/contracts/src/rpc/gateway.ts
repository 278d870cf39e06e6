import { z } from 'zod';
import { defineRpc } from './define-rpc';

/** What the gateway, which owns stores and tokens, answers over NATS: the admin CLI's store commands. */

const StoreCreateReplySchema = z.object({
  storeId: z.string(),
  token: z.string(),
  webhookSecret: z.string(),
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
    z.object({ storeId: z.string(), expiresInSeconds: z.number().int().positive().optional() }),
    z.object({ token: z.string(), expiresAt: z.string().nullable() }),
    forOperator,
  ),
  tokensRevoke: defineRpc(
    'admin.tokens.revoke',
    z.object({ token: z.string() }),
    z.object({ revoked: z.literal(true) }),
    forOperator,
  ),
  storesRotateSecret: defineRpc(
    'admin.stores.rotate-secret',
    z.object({ storeId: z.string() }),
    z.object({ storeId: z.string(), webhookSecret: z.string() }),
    forOperator,
  ),
  /**
   * Seals again every store's webhook secrets that are in clear (written before sealing) or under
   * a key SECRETS_KEYS no longer has first: after a key rotation, before the old key is removed.
   */
  storesResealSecrets: defineRpc(
    'admin.stores.reseal-secrets',
    z.object({}),
    z.object({ stores: z.number().int(), resealed: z.number().int() }),
    forOperator,
  ),
  /**
   * The dispatcher's read of a store's webhook secrets (it caches them). Whoever holds a secret can
   * forge that store's webhooks: the dispatcher alone may ask.
   */
  webhookSecrets: defineRpc(
    'stores.webhook-secrets',
    z.object({ storeId: z.string() }),
    z.object({ secrets: z.array(z.string()) }),
    { server: 'gateway', callers: ['webhook-dispatcher'] },
  ),
} as const;
