import { CommonEnv, duration, flag, loadConfig, port, z } from '@pix/config';

export const config = loadConfig(
  z.object({
    ...CommonEnv,
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9104),
    /** A delivery succeeds on a 2xx within this time. */
    WEBHOOK_TIMEOUT: duration('15s'),
    /** Delays before each attempt, comma-separated; the first is the first attempt. */
    WEBHOOK_RETRY_SCHEDULE: z.string().default('0s,5s,5m,30m,2h,5h,10h,10h'),
    /** Allows merchant URLs on loopback and private networks (local development only). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: flag(false),
  }),
);
export type Config = typeof config;
