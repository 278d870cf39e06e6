import { createHmac } from 'node:crypto';
import { CommonEnv, MongoEnv, duration, loadConfig, port, z } from '@pix/config';
import { PIX_PROVIDERS } from '@pix/contracts';
import { parseSealingKeys, type SealingKey } from '@pix/runtime';

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
    /** The adapter's PSP (the same variable): the public sandbox routes exist only with `sandbox`. */
    PIX_PROVIDER: z.enum(PIX_PROVIDERS).default('sandbox'),
    /**
     * Where browsers reach the gateway (payments' variable too): the dashboard's cookie is Secure
     * when it is https, and a state-changing request must come from its origin.
     */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Signs the dashboard's session cookies; every replica needs the same one. */
    DASHBOARD_SESSION_SECRET: z.string().min(32).optional(),
    /**
     * Seal the stores' webhook secrets at rest (AES-256-GCM): `kid:base64key` entries, comma
     * separated, 32-byte keys; the first seals, every one opens (docs/security.md: rotation).
     */
    SECRETS_KEYS: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined) return undefined;
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
  })
  // Behind https, or with a real PSP, the gateway is a deployment merchants use: a key derived from
  // a MONGO_URL that carries no secret would make sessions forgeable and sealed secrets readable,
  // so both must be given.
  .superRefine((env, ctx) => {
    const production = env.PUBLIC_BASE_URL?.startsWith('https:')
      ? 'PUBLIC_BASE_URL is https'
      : env.PIX_PROVIDER === 'apipix'
        ? 'PIX_PROVIDER=apipix'
        : null;
    if (!production) return;
    for (const name of ['DASHBOARD_SESSION_SECRET', 'SECRETS_KEYS'] as const) {
      if (env[name] === undefined)
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when ${production}` });
    }
  })
  .transform((env) => ({
    ...env,
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${env.GATEWAY_PORT}`,
    DASHBOARD_SESSION_SECRET: env.DASHBOARD_SESSION_SECRET ?? developmentSecret(env.MONGO_URL, 'dashboard-session'),
    SECRETS_KEYS: env.SECRETS_KEYS ?? developmentSealingKeys(env.MONGO_URL),
  }));

export const config = loadConfig(gatewayEnv);
export type Config = typeof config;

/**
 * Without DASHBOARD_SESSION_SECRET or SECRETS_KEYS (only on http with the sandbox PSP: development,
 * compose) each is derived from MONGO_URL, so that every replica of one stack agrees on it with
 * nothing more to configure. `make up` and the tests generate real ones (tools/devstack).
 */
function developmentSecret(mongoUrl: string, purpose: string): string {
  return createHmac('sha256', mongoUrl).update(`pix-payments/${purpose}/v1`).digest('base64url');
}

function developmentSealingKeys(mongoUrl: string): SealingKey[] {
  return [{ kid: 'dev', key: Buffer.from(developmentSecret(mongoUrl, 'secrets-key'), 'base64url') }];
}
