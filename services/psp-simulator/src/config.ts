import { CommonEnv, MongoEnv, duration, loadConfig, port, secret, z } from '@pix/config';

const file = z.string().min(1);

/**
 * The PSP simulator's environment, checked once at start (exported for its tests). It speaks no
 * NATS: of the common settings it takes the log level and the shutdown grace only.
 */
export const simulatorEnv = z.object({
  LOG_LEVEL: CommonEnv.LOG_LEVEL,
  SHUTDOWN_GRACE: CommonEnv.SHUTDOWN_GRACE,
  ...MongoEnv,
  OPS_HOST: z.string().default('127.0.0.1'),
  OPS_PORT: port(9105),
  /** API Pix v2 (and /oauth/token), over HTTPS with mutual TLS: what a receiver (the adapter) calls. */
  API_HOST: z.string().default('127.0.0.1'),
  API_PORT: port(8443),
  /** The simulator's server certificate and key, and the CA whose client certificates it accepts (its own). */
  TLS_CERT_FILE: file,
  TLS_KEY_FILE: file,
  TLS_CLIENT_CA_FILE: file,
  /**
   * The certificate and key it presents when it POSTs a callback to a registered webhook, and the
   * CA that signed the receivers' callback servers.
   */
  CALLBACK_TLS_CERT_FILE: file,
  CALLBACK_TLS_KEY_FILE: file,
  CALLBACK_CA_FILE: file,
  /** The payer and back office (pay, hold, clear, reject, fail the next refund, faults): plain HTTP, internal only. */
  BACKOFFICE_HOST: z.string().default('127.0.0.1'),
  BACKOFFICE_PORT: port(8082),
  /** The one receiver's OAuth2 client credentials (client_credentials grant, HTTP Basic). */
  OAUTH_CLIENT_ID: z.string().min(1).default('pix-platform'),
  OAUTH_CLIENT_SECRET: secret(16),
  /** How long an access token lasts (expires_in). */
  TOKEN_TTL: duration('1h'),
  /** Merchant name and city written into every BR Code it makes (EMV fields 59, 60). */
  MERCHANT_NAME: z.string().min(1).max(25).default('PIX PAYMENTS SANDBOX'),
  MERCHANT_CITY: z.string().min(1).max(15).default('SAO PAULO'),
  /** Host (and path prefix) of the charges' payload locations (the URL a dynamic BR Code points at). */
  LOCATION_HOST: z.string().default('pix.sandbox.local'),
  /** Per-attempt timeout of a callback POST; a callback not acknowledged is sent again later. */
  CALLBACK_TIMEOUT: duration('5s'),
});

export const config = loadConfig(simulatorEnv);
export type Config = typeof config;
