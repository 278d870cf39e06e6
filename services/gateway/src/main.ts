import './tracing';
import type http from 'node:http';
import { FactVerifier } from '@pix/messaging';
import { writeStartFailure } from '@pix/observability';
import {
  closeHttpServer,
  connectDatabase,
  connectMessaging,
  FactGate,
  outlastClients,
  Sealer,
  Service,
} from '@pix/runtime';
import { serveStoreRpcs } from './admin-rpc';
import { createApp } from './app';
import { AuthCache } from './auth-cache';
import { AuthFailures } from './auth-failures';
import { config } from './config';
import { SessionSigner } from './dashboard/session';
import { answerParserErrors } from './parser-errors';
import { PaymentStatusFeed } from './payment-page/status-feed';
import { PaymentViews } from './payment-views';
import { PublicLimiter } from './public-limits';
import { StreamLimiter } from './sse-limits';
import { GatewayStorage } from './storage';
import { UnreadableSecretsReport } from './unreadable-secrets';

async function main(): Promise<void> {
  const service = await Service.start('gateway', config);
  const { logger } = service;

  await connectDatabase(service, config);
  const storage = await GatewayStorage.open(new Sealer(config.SECRETS_KEYS), logger);
  service.mark('indexes');

  const nc = await connectMessaging(service, config);

  const authCache = await AuthCache.open(
    nc,
    { token: (hash) => storage.tokens.find(hash), storeActive: (storeId) => storage.stores.isActive(storeId) },
    logger,
    { negativeTtlMs: config.AUTH_NEGATIVE_CACHE_TTL },
  );
  await authCache.start();
  service.mark('auth cache');
  service.onShutdown('auth cache', () => authCache.stop());

  const subscriptions = serveStoreRpcs(
    nc,
    storage,
    logger,
    authCache,
    new UnreadableSecretsReport(logger, service.registry),
  );
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  const feed = new PaymentStatusFeed(
    nc,
    logger,
    new FactGate(new FactVerifier(config.PAYMENT_FACTS_PUBLIC_KEYS), logger),
  );

  const views = await PaymentViews.open(nc, logger, service.registry);
  service.mark('payment views');

  const app = createApp({
    nc,
    logger,
    rpcTimeoutMs: config.RPC_TIMEOUT,
    storage,
    views,
    authCache,
    authFailures: new AuthFailures(
      {
        failures: config.AUTH_FAILURE_LIMIT,
        replicaFailures: config.AUTH_FAILURE_REPLICA_LIMIT,
        windowMs: config.AUTH_FAILURE_WINDOW,
      },
      service.registry,
    ),
    trustProxy: config.TRUST_PROXY,
    rateLimit: { requests: config.RATE_LIMIT_REQUESTS, windowMs: config.RATE_LIMIT_WINDOW },
    publicLimiter: new PublicLimiter(
      { requests: config.PUBLIC_RATE_LIMIT_REQUESTS, windowMs: config.PUBLIC_RATE_LIMIT_WINDOW },
      service.registry,
    ),
    feed,
    streams: new StreamLimiter(
      { perReplica: config.SSE_MAX_CONNECTIONS, perStore: config.SSE_MAX_CONNECTIONS_PER_STORE },
      service.registry,
    ),
    dashboard: {
      signer: new SessionSigner(config.DASHBOARD_SESSION_SECRET, config.DASHBOARD_SESSION_TTL),
      publicBaseUrl: config.PUBLIC_BASE_URL,
    },
  });
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(config.GATEWAY_PORT, config.HTTP_HOST, () => resolve(s));
    outlastClients(s);
    answerParserErrors(s);
  });
  service.onShutdown('http server', async () => {
    // The payment pages' event streams never go idle: once no new connection is taken they are
    // ended (each browser reconnects, to another replica), so the close can finish.
    const closing = closeHttpServer(server);
    await feed.stop();
    await closing;
  });

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ url: `http://${config.HTTP_HOST}:${config.GATEWAY_PORT}` });
}

main().catch((err: unknown) => {
  writeStartFailure('gateway', err);
  process.exit(1);
});
