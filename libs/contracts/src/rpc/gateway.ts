import { z } from 'zod';
import { defineRpc } from './define-rpc';

/** What the gateway, which owns stores and tokens, answers over NATS: the admin CLI's store commands. */

const StoreCreateReplySchema = z.object({
  storeId: z.string(),
  token: z.string(),
  webhookSecret: z.string(),
});

export const GatewayRpc = {
  storesCreate: defineRpc('admin.stores.create', z.object({ name: z.string().min(1) }), StoreCreateReplySchema),
  storesSetActive: defineRpc(
    'admin.stores.set-active',
    z.object({ storeId: z.string(), active: z.boolean() }),
    z.object({ storeId: z.string(), active: z.boolean() }),
  ),
  tokensIssue: defineRpc(
    'admin.tokens.issue',
    z.object({ storeId: z.string(), expiresInSeconds: z.number().int().positive().optional() }),
    z.object({ token: z.string(), expiresAt: z.string().nullable() }),
  ),
  tokensRevoke: defineRpc(
    'admin.tokens.revoke',
    z.object({ token: z.string() }),
    z.object({ revoked: z.literal(true) }),
  ),
  storesRotateSecret: defineRpc(
    'admin.stores.rotate-secret',
    z.object({ storeId: z.string() }),
    z.object({ storeId: z.string(), webhookSecret: z.string() }),
  ),
  /**
   * Seals again every store's webhook secrets that are in clear (written before sealing) or under
   * a key SECRETS_KEYS no longer has first: after a key rotation, before the old key is removed.
   */
  storesResealSecrets: defineRpc(
    'admin.stores.reseal-secrets',
    z.object({}),
    z.object({ stores: z.number().int(), resealed: z.number().int() }),
  ),
  /** The dispatcher's read of a store's webhook secrets (it caches them). */
  webhookSecrets: defineRpc(
    'stores.webhook-secrets',
    z.object({ storeId: z.string() }),
    z.object({ secrets: z.array(z.string()) }),
  ),
} as const;
