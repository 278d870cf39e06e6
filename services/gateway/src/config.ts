import { createHmac } from 'node:crypto';
import { CommonEnv, MongoEnv, duration, loadConfig, port, z } from '@pix/config';
import { PIX_PROVIDERS } from '@pix/contracts';

/** The gateway's environment, checked once at start (exported for its tests). */
export const gatewayEnv = z
  .object({
    ...CommonEnv,
    ...MongoEnv,
    HTTP_HOST: z.string().default('127.0.0.1'),
    GATEWAY_PORT: port(8080),
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9101),
    /** How long the gateway waits for payments before answering 503. */
    RPC_TIMEOUT: z.coerce.number().int().positive().default(10_000),
    /** Requests one token may make per RATE_LIMIT_WINDOW, on each gateway replica. */
    RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(1200),
    RATE_LIMIT_WINDOW: duration('1m'),
    /** The adapter's PSP (the same variable): the public sandbox routes exist only with `sandbox`. */
    PIX_PROVIDER: z.enum(PIX_PROVIDERS).default('sandbox'),
    /**
     * Where browsers reach the gateway (payments' variable too): the dashboard's cookie is Secure
     * when it is https, and a state-changing request must come from its origin.
     */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Signs the dashboard's session cookies; every replica needs the same one. */
    DASHBOARD_SESSION_SECRET: z.string().min(32).optional(),
    /** How long a dashboard session lasts before the merchant enters the token again. */
    DASHBOARD_SESSION_TTL: duration('8h'),
    /** Live streams (payment pages and dashboards) one replica keeps open at once. */
    SSE_MAX_CONNECTIONS: z.coerce.number().int().positive().default(10_000),
    /** Live streams of one store (its customers' payment pages and its dashboards) on one replica. */
    SSE_MAX_CONNECTIONS_PER_STORE: z.coerce.number().int().positive().default(1_000),
  })
  // Behind https the gateway is a deployment merchants use: a key derived from a MONGO_URL that
  // may carry no password would make sessions forgeable, so the secret must be given.
  .refine((env) => env.DASHBOARD_SESSION_SECRET !== undefined || !env.PUBLIC_BASE_URL?.startsWith('https:'), {
    message: 'DASHBOARD_SESSION_SECRET is required when PUBLIC_BASE_URL is https',
    path: ['DASHBOARD_SESSION_SECRET'],
  })
  .transform((env) => ({
    ...env,
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${env.GATEWAY_PORT}`,
    DASHBOARD_SESSION_SECRET: env.DASHBOARD_SESSION_SECRET ?? developmentSessionSecret(env.MONGO_URL),
  }));

export const config = loadConfig(gatewayEnv);
export type Config = typeof config;

/**
 * Without DASHBOARD_SESSION_SECRET (only on http: development, compose) the key is derived from
 * MONGO_URL, so that every replica of one stack agrees on it with nothing more to configure.
 */
function developmentSessionSecret(mongoUrl: string): string {
  return createHmac('sha256', mongoUrl).update('pix-payments/dashboard-session/v1').digest('base64url');
}
