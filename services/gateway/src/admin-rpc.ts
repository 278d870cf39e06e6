import type { NatsConnection } from '@nats-io/transport-node';
import { DomainError, GatewayRpc, QueueGroups, Subjects } from '@pix/contracts';
import { serveRpc, type RpcServer } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import type { AuthCache } from './auth-cache';
import { hashToken, StoreNotFound, type GatewayStorage } from './storage';
import type { UnreadableSecretsReport } from './unreadable-secrets';

async function storeMustExist<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof StoreNotFound) throw new DomainError('store_not_found', { storeId: err.message });
    throw err;
  }
}

/**
 * The gateway owns stores and tokens; the admin CLI and the webhook-dispatcher reach them over
 * NATS. These subjects are internal: nothing public routes to them. Revocations and (de)activations
 * are written to MongoDB first, then to the AUTH bucket every gateway replica watches; if the
 * bucket write fails the call fails and may simply be repeated; an issue is announced there too
 * (best effort: it only clears replicas' negative caches). A secret rotation is announced to the
 * webhook-dispatchers, which cache the secrets (Subjects.storesWebhookSecretsRotated). A re-seal
 * rewrites the secrets' envelopes only: their values, and so the dispatchers' caches, stay. A
 * secret that does not open (a retired key) is reported by the dispatcher's reads (`unreadable`),
 * listed by check-secrets and reseal-secrets, and dropped by a rotation.
 */
export function serveStoreRpcs(
  nc: NatsConnection,
  storage: Pick<GatewayStorage, 'stores' | 'tokens'>,
  logger: Logger,
  authCache: AuthCache,
  unreadable: UnreadableSecretsReport,
): RpcServer[] {
  const { stores, tokens } = storage;
  const rpc = { queue: QueueGroups.gateway, logger };
  return [
    serveRpc(
      nc,
      GatewayRpc.storesCreate,
      async (req) => {
        const created = await stores.create(req.name);
        await authCache.tokenIssued(hashToken(created.token));
        await authCache.tokenIssued(hashToken(created.liveToken));
        return created;
      },
      rpc,
    ),
    serveRpc(
      nc,
      GatewayRpc.storesSetActive,
      (req) =>
        storeMustExist(async () => {
          await stores.setActive(req.storeId, req.active);
          await authCache.storeActiveChanged(req.storeId, req.active);
          return { storeId: req.storeId, active: req.active };
        }),
      rpc,
    ),
    serveRpc(
      nc,
      GatewayRpc.tokensIssue,
      (req) =>
        storeMustExist(async () => {
          const issued = await tokens.issue(req.storeId, req.livemode, req.expiresInSeconds);
          await authCache.tokenIssued(hashToken(issued.token));
          return issued;
        }),
      rpc,
    ),
    serveRpc(
      nc,
      GatewayRpc.tokensRevoke,
      async (req) => {
        const tokenHash = await tokens.revoke(req.token);
        if (!tokenHash) throw new DomainError('token_not_found');
        await authCache.tokenRevoked(tokenHash);
        return { revoked: true as const };
      },
      rpc,
    ),
    serveRpc(
      nc,
      GatewayRpc.storesRotateSecret,
      (req) =>
        storeMustExist(async () => {
          const { webhookSecret, dropped } = await stores.rotateWebhookSecret(req.storeId, req.livemode);
          if (dropped > 0) {
            logger.warn(
              { storeId: req.storeId, livemode: req.livemode, dropped },
              'rotation dropped webhook secrets that do not open',
            );
          }
          // Every dispatcher replica drops its cached secrets of the store, so the next delivery
          // is signed with the new set; flushed, so the notice has left before the reply does.
          nc.publish(Subjects.storesWebhookSecretsRotated, JSON.stringify({ storeId: req.storeId }));
          await nc.flush();
          return { storeId: req.storeId, livemode: req.livemode, webhookSecret, droppedUnreadable: dropped };
        }),
      rpc,
    ),
    serveRpc(nc, GatewayRpc.storesResealSecrets, () => stores.resealWebhookSecrets(), rpc),
    serveRpc(nc, GatewayRpc.storesCheckSecrets, () => stores.checkWebhookSecrets(), rpc),
    serveRpc(
      nc,
      GatewayRpc.webhookSecrets,
      (req) =>
        storeMustExist(async () => {
          const read = await stores.webhookSecrets(req.storeId, req.livemode);
          if (read.unreadable.length > 0) unreadable.found(req.storeId, read.unreadable, read.secrets.length);
          if (read.secrets.length === 0 && read.unreadable.length > 0) {
            const kids = [...new Set(read.unreadable.map((u) => u.kid))].join(',');
            throw new DomainError('webhook_secrets_unreadable', { storeId: req.storeId, kids });
          }
          return { secrets: read.secrets };
        }),
      rpc,
    ),
  ];
}
