import { CommonEnv, loadConfig, port, z } from '@pix/config';

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
  }),
);
export type Config = typeof config;
