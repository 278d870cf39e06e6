import { CommonEnv, duration, loadConfig, port, z } from '@pix/config';
import { PIX_PROVIDERS } from '@pix/contracts';

export const config = loadConfig(
  z.object({
    ...CommonEnv,
    MONGO_URL: z.string().default('mongodb://127.0.0.1:27017/pix'),
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
    /** Live streams (payment pages and dashboards) one replica keeps open at once. */
    SSE_MAX_CONNECTIONS: z.coerce.number().int().positive().default(10_000),
    /** Live streams of one store (its customers' payment pages and its dashboards) on one replica. */
    SSE_MAX_CONNECTIONS_PER_STORE: z.coerce.number().int().positive().default(1_000),
  }),
);
export type Config = typeof config;
