import express, { type Express } from 'express';
import type { NatsConnection } from '@nats-io/transport-node';
import { observeHttp, type Logger } from '@pix/observability';
import { requireStore, TokenRateLimiter, type RateLimit } from './auth';
import type { AuthCache } from './auth-cache';
import type { AuthFailures } from './auth-failures';
import { dashboardRouter } from './dashboard/routes';
import type { SessionSigner } from './dashboard/session';
import { errorHandler, notFoundHandler } from './http-errors';
import { docsRouter } from './openapi';
import { paymentPageRouter } from './payment-page/routes';
import type { PaymentStatusFeed } from './payment-page/status-feed';
import type { PaymentViews } from './payment-views';
import { mountPublicApi } from './public-api';
import type { PublicLimiter } from './public-limits';
import { qrRouter } from './qr-route';
import type { StreamLimiter } from './sse-limits';
import type { GatewayStorage } from './storage';

/** Strict-Transport-Security on every answer given over https: a year, this host. */
const HSTS = 'max-age=31536000';

export function createApp(options: {
  nc: NatsConnection;
  logger: Logger;
  rpcTimeoutMs: number;
  storage: GatewayStorage;
  /** payments' read model, which answers a payment's get. */
  views: PaymentViews;
  authCache: AuthCache;
  /** Refused tokens per client address (the door: auth.ts). */
  authFailures: AuthFailures;
  /** Proxies whose X-Forwarded-For is believed (TRUST_PROXY): what req.ip is. */
  trustProxy: number;
  rateLimit: RateLimit;
  /** Requests per client address to the public routes without a token (page, QR image, status stream). */
  publicLimiter: PublicLimiter;
  /** The live status of the hosted payment pages. */
  feed: PaymentStatusFeed;
  /** The caps on live streams, shared by the payment pages and the dashboards. */
  streams: StreamLimiter;
  /** The merchant's dashboard: its session signer, and where browsers reach the gateway. */
  dashboard: { signer: SessionSigner; publicBaseUrl: string };
}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(options.logger));
  app.set('etag', false);
  app.set('query parser', 'simple');
  // A hop count, never `true`: a client could otherwise name any address it likes.
  app.set('trust proxy', options.trustProxy);
  // Reached over https (the connection's, or X-Forwarded-Proto from a proxy TRUST_PROXY believes),
  // browsers are told to use nothing else for this host for a year.
  app.use((req, res, next) => {
    if (req.secure) res.set('Strict-Transport-Security', HSTS);
    next();
  });
  // One limiter for the API and the dashboard: a store's dashboard requests count against its token's limit.
  const rateLimiter = new TokenRateLimiter(options.rateLimit);
  mountPublicApi(app, {
    nc: options.nc,
    rpcTimeoutMs: options.rpcTimeoutMs,
    auth: requireStore(options.authCache, options.authFailures, rateLimiter),
    idempotencyKeys: options.storage.idempotencyKeys,
    views: options.views,
  });
  app.use(
    '/pay',
    paymentPageRouter({
      nc: options.nc,
      rpcTimeoutMs: options.rpcTimeoutMs,
      feed: options.feed,
      streams: options.streams,
      stores: options.storage.stores,
      limiter: options.publicLimiter,
    }),
  );
  app.use(
    '/dashboard',
    dashboardRouter({
      nc: options.nc,
      logger: options.logger,
      rpcTimeoutMs: options.rpcTimeoutMs,
      authCache: options.authCache,
      authFailures: options.authFailures,
      rateLimiter,
      feed: options.feed,
      streams: options.streams,
      signer: options.dashboard.signer,
      publicBaseUrl: options.dashboard.publicBaseUrl,
      stores: options.storage.stores,
      views: options.views,
    }),
  );
  app.use('/public-api/v1/qrcodes', qrRouter(options.nc, options.rpcTimeoutMs, options.publicLimiter));
  app.use('/public-api/v1', docsRouter());
  app.use(notFoundHandler);
  app.use(errorHandler(options.logger));
  return app;
}
