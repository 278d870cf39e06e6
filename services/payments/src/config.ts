import { CommonEnv, MongoEnv, duration, factSigningKey, factVerifyingKeys, loadConfig, port, z } from '@pix/config';

export const config = loadConfig(
  z.object({
    ...CommonEnv,
    ...MongoEnv,
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9102),
    /** Base of the public addresses handed to merchants (the QR image lives under it). */
    PUBLIC_BASE_URL: z.url().default('http://127.0.0.1:8080'),
    /** Life of a charge at the PSP; an unpaid payment becomes not_approved after it. */
    PIX_CHARGE_TTL: duration('86400s'),
    /** Time in review after which the paid amount is refunded automatically. */
    REVIEW_TIMEOUT: duration('30m'),
    /** How long create waits for the PSP before answering with null QR fields. */
    PSP_TIMEOUT: duration('3s'),
    /**
     * How often the outbox relay looks for payments whose messages are still unpublished (a crashed
     * writer, JetStream away). Writes publish their own messages at once; this is the safety net.
     */
    OUTBOX_RELAY_INTERVAL: duration('5s'),
    /** The key payments signs its payment events with (payments.events.*): the dispatcher sends no other. */
    FACT_SIGNING_KEY: factSigningKey(),
    /** The adapter's public keys: a PSP fact (pix.events.*) signed by none of them is refused. */
    PIX_FACTS_PUBLIC_KEYS: factVerifyingKeys(),
  }),
);
export type Config = typeof config;
