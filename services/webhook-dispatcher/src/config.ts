import { CommonEnv, MongoEnv, duration, factVerifyingKeys, flag, loadConfig, port, z } from '@pix/config';

export const config = loadConfig(
  z.object({
    ...CommonEnv,
    /** The delivery log lives here (attempts and retries are carried by JetStream). */
    ...MongoEnv,
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9104),
    /** A delivery succeeds on a 2xx within this time. */
    WEBHOOK_TIMEOUT: duration('15s'),
    /** Delays before each attempt, comma-separated; the first is the first attempt. */
    WEBHOOK_RETRY_SCHEDULE: z.string().default('0s,5s,5m,30m,2h,5h,10h,10h'),
    /** Allows merchant URLs on loopback and private networks (local development only). */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: flag(false),
    /**
     * Attempts in flight at once to one endpoint (URL origin), per replica. A slot is held from
     * before the attempt's claim is written until its request is over, so it also covers our own
     * database round trip: 16 slots saturated at 75 webhooks/s to one endpoint when a cold or
     * loaded stack made that trip 150-800 ms, and a saturated endpoint's attempts cost twice the
     * commands (handed to WEBHOOK_ATTEMPTS), which kept it saturated. docs/webhooks.md#isolation.
     */
    WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).default(64),
    /** Attempts in flight at once in total, per replica: eight endpoints' worth of slots. */
    WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(512),
    /**
     * A pending delivery not moved on this long after its next attempt was due is looked at: its
     * next attempt is published again (the net for a JetStream message gone missing, or a scheduled
     * one a stream's new leader fires late). Publishing one still under way is harmless: its claim
     * keeps it to one send.
     */
    WEBHOOK_STALL_AFTER: duration('10s'),
    /** How often the stall check looks for deliveries whose look is due (one range read, of those only). */
    WEBHOOK_STALL_SWEEP_INTERVAL: duration('5s'),
    /** How long finished deliveries and their attempts stay in the delivery log. */
    WEBHOOK_LOG_RETENTION: duration('30d'),
    /** Payments' public keys: a payment event signed by none of them is refused, and no webhook goes out. */
    PAYMENT_FACTS_PUBLIC_KEYS: factVerifyingKeys(),
  }),
);
export type Config = typeof config;
