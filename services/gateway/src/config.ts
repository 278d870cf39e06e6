import { CommonEnv, MongoEnv, duration, factVerifyingKeys, loadConfig, port, secret, z } from '@pix/config';
import { parseSealingKeys } from '@pix/runtime';

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
    /**
     * Requests one client address may make per PUBLIC_RATE_LIMIT_WINDOW, on each replica, to the
     * public routes without a token (the payment page, the QR image, the status stream) together.
     */
    PUBLIC_RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(300),
    PUBLIC_RATE_LIMIT_WINDOW: duration('1m'),
    /**
     * Where browsers reach the gateway (payments' variable too): the dashboard's cookie is Secure
     * when it is https, and a state-changing request must come from its origin.
     */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * Signs the dashboard's session cookies; every replica needs the same one. Required, like
     * SECRETS_KEYS: a secret that guards a door has no default (`make up` and the tests generate
     * their own, tools/devstack/src/local-secrets.ts).
     */
    DASHBOARD_SESSION_SECRET: secret(32),
    /**
     * Seal the stores' webhook secrets at rest (AES-256-GCM): `kid:base64key` entries, comma
     * separated, 32-byte keys; the first seals, every one opens (docs/security.md: rotation).
     */
    SECRETS_KEYS: secret(1).transform((text, ctx) => {
      try {
        return parseSealingKeys(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
    /**
     * Failed bearer authentications one client address may make per AUTH_FAILURE_WINDOW on each
     * replica; past it, further failures answer 429 without a database read.
     */
    AUTH_FAILURE_LIMIT: z.coerce.number().int().positive().default(100),
    /**
     * Failed bearer authentications all addresses together may make per AUTH_FAILURE_WINDOW on each
     * replica: past it, tokens memory cannot judge are answered 429 without a database read, so a
     * guess spread over many addresses costs at most this many reads a window.
     */
    AUTH_FAILURE_REPLICA_LIMIT: z.coerce.number().int().positive().default(1000),
    AUTH_FAILURE_WINDOW: duration('1m'),
    /** How long an unknown token is remembered as unknown (it then costs no database read). */
    AUTH_NEGATIVE_CACHE_TTL: duration('1m'),
    /**
     * Proxies in front of the gateway whose X-Forwarded-For is believed (express's `trust proxy`
     * hop count): 0, the default, takes the connection's address; behind one load balancer, 1.
     */
    TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
    /** How long a dashboard session lasts before the merchant enters the token again. */
    DASHBOARD_SESSION_TTL: duration('8h'),
    /** Live streams (payment pages and dashboards) one replica keeps open at once. */
    SSE_MAX_CONNECTIONS: z.coerce.number().int().positive().default(10_000),
    /** Live streams of one store (its customers' payment pages and its dashboards) on one replica. */
    SSE_MAX_CONNECTIONS_PER_STORE: z.coerce.number().int().positive().default(1_000),
    /** Payments' public keys: a payment event signed by none of them reaches no page nor dashboard. */
    PAYMENT_FACTS_PUBLIC_KEYS: factVerifyingKeys(),
  })
  .transform((env) => ({
    ...env,
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${env.GATEWAY_PORT}`,
  }));

export const config = loadConfig(gatewayEnv);
export type Config = typeof config;
