import {
  CommonEnv,
  MongoEnv,
  duration,
  factSigningKey,
  loadConfig,
  optionalDuration,
  port,
  secret,
  z,
} from '@pix/config';
import { parsePins } from './callback-pins';

const file = z.string().min(1);

/**
 * A comma list of `sha256/<base64 SPKI digest>`, `dns:<SAN name>` or `cn:<subject CN>`
 * (callback-pins.ts): which certificates of a PSP's CA are that PSP's own. Public values: no secret.
 */
const pins = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const parsed = parsePins(text ?? '');
    if ('pins' in parsed) return parsed.pins;
    ctx.addIssue({
      code: 'custom',
      message: `not a pin (sha256/<base64>, dns:<name> or cn:<name>): ${parsed.invalid.join(', ')}`,
    });
    return z.NEVER;
  });

/** Retries of a call to a PSP, each after a longer wait. */
const retryLimit = z.coerce.number().int().min(0).max(10);
/** Connections to a PSP at most, per replica and host. */
const maxConnections = z.coerce.number().int().min(1).max(1000);

/**
 * The live connection's settings (LIVE_PSP_*), the same parts as the test one's: all of them, or
 * none (no live mode: a live payment's charge waits for one, counted as the PSP away).
 */
const LIVE_REQUIRED = [
  'LIVE_PSP_CLIENT_ID',
  'LIVE_PSP_CLIENT_SECRET',
  'LIVE_PSP_RECEIVER_KEY',
  'LIVE_PSP_TLS_CERT_FILE',
  'LIVE_PSP_TLS_KEY_FILE',
  'LIVE_PSP_TLS_CA_FILE',
  'LIVE_PSP_CALLBACK_TLS_CERT_FILE',
  'LIVE_PSP_CALLBACK_TLS_KEY_FILE',
  'LIVE_PSP_CALLBACK_CLIENT_CA_FILE',
] as const;

/**
 * The adapter's environment, checked once at start (exported for its tests). It speaks API Pix to
 * one PSP per mode (docs/decisions/psp-connections.md): the test connection (PIX_*, the callback
 * server on HTTP_PORT) and, when LIVE_PSP_API_URL is set, the live one (LIVE_PSP_*, its callback
 * server on LIVE_PSP_CALLBACK_PORT). Each has its own client, credentials, certificates, callback
 * server and pins: what one PSP says never reaches the other mode.
 */
export const adapterEnv = z
  .object({
    ...CommonEnv,
    ...MongoEnv,
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9103),
    /** Where the callback servers listen; the test connection's on HTTP_PORT. */
    HTTP_HOST: z.string().default('127.0.0.1'),
    HTTP_PORT: port(8081),
    /**
     * The test connection's PSP back office (plain HTTP, internal only), when that PSP is the
     * simulator: its payer and staff play the sandbox routes. Unset (a PSP's homologation), the
     * sandbox actions answer that they are not available.
     */
    PSP_BACKOFFICE_URL: z.url().optional(),
    /** The receiver's Pix key (chave) written into every charge. */
    PIX_RECEIVER_KEY: z.string().min(1),
    /** OAuth2 client credentials at the PSP (a secret has no default). */
    PIX_CLIENT_ID: z.string().min(1),
    PIX_CLIENT_SECRET: secret(8),
    /** Base of the PSP's API Pix (…/v2) and its OAuth2 token endpoint (default: /oauth/token on its host). */
    PIX_API_URL: z.url(),
    PIX_OAUTH_URL: z.url().optional(),
    /**
     * Where the PSP is to send its callbacks, registered at start (PUT /webhook/{chave} with the
     * receiver's key) and again until the PSP takes it; the PSP appends `/pix` (API Pix). Unset:
     * the callback URL is registered at the PSP by hand.
     */
    PIX_CALLBACK_URL: z.url().optional(),
    /** The client certificate and key the PSP issued, and the CA of the PSP's server (PEM files). */
    PIX_TLS_CERT_FILE: file,
    PIX_TLS_KEY_FILE: file,
    PIX_TLS_CA_FILE: file,
    /** Per-attempt timeout and retries (with exponential backoff) of the test connection's calls to its PSP. */
    PIX_TIMEOUT: duration('5s'),
    PIX_RETRY_LIMIT: retryLimit.default(3),
    /**
     * Connections the test connection keeps open to its PSP at most, per replica: more calls wait
     * for one (psp_calls_waiting), within PIX_TIMEOUT. Sized from what the PSP allows a client.
     */
    PIX_MAX_CONNECTIONS: maxConnections.default(64),
    /**
     * The callback endpoint is HTTPS with mutual TLS: this server certificate and key, and the CA
     * whose client certificates (the PSP's) are accepted.
     */
    CALLBACK_TLS_CERT_FILE: file,
    CALLBACK_TLS_KEY_FILE: file,
    CALLBACK_CLIENT_CA_FILE: file,
    /** Which certificates of that CA are the PSP's (it also certifies the PSP's merchants). */
    PSP_CALLBACK_PINS: pins,
    /** The live connection: the same parts, all or none (LIVE_REQUIRED). */
    LIVE_PSP_API_URL: z.url().optional(),
    LIVE_PSP_OAUTH_URL: z.url().optional(),
    LIVE_PSP_CLIENT_ID: z.string().min(1).optional(),
    LIVE_PSP_CLIENT_SECRET: secret(8).optional(),
    LIVE_PSP_RECEIVER_KEY: z.string().min(1).optional(),
    LIVE_PSP_CALLBACK_URL: z.url().optional(),
    LIVE_PSP_TLS_CERT_FILE: file.optional(),
    LIVE_PSP_TLS_KEY_FILE: file.optional(),
    LIVE_PSP_TLS_CA_FILE: file.optional(),
    LIVE_PSP_CALLBACK_PORT: port(8082),
    LIVE_PSP_CALLBACK_TLS_CERT_FILE: file.optional(),
    LIVE_PSP_CALLBACK_TLS_KEY_FILE: file.optional(),
    LIVE_PSP_CALLBACK_CLIENT_CA_FILE: file.optional(),
    LIVE_PSP_CALLBACK_PINS: pins,
    /**
     * The live connection's calls, sized from its own PSP's published limits and latency; each
     * unset is the test connection's (PIX_TIMEOUT, PIX_RETRY_LIMIT, PIX_MAX_CONNECTIONS).
     */
    LIVE_PSP_TIMEOUT: optionalDuration(),
    LIVE_PSP_RETRY_LIMIT: retryLimit.optional(),
    LIVE_PSP_MAX_CONNECTIONS: maxConnections.optional(),
    /**
     * Reconciliation with the PSP (GET /pix): how often the Pix it received are read, so a lost
     * callback delays a payment by about this much; and how far each window reaches back before the
     * last one's end, for a PSP that lists a Pix a moment after its time.
     */
    RECONCILE_INTERVAL: duration('60s'),
    RECONCILE_OVERLAP: duration('2m'),
    /**
     * Whether a connection's PSP reports infractions (MED claims) as Efí does (`efi`: GET
     * /v2/gn/infracoes, answered with POST …/defesa), or not (`none`: its disputes are not read; its
     * MED returns still are refunds). A PSP that answers the listing 404 is taken as `none`. The
     * simulator reports them; a live PSP must be said to.
     */
    PIX_INFRACTIONS: z.enum(['efi', 'none']).default('efi'),
    LIVE_PSP_INFRACTIONS: z.enum(['efi', 'none']).default('none'),
    /** How often a connection's infractions are read (each window from its own cursor, less RECONCILE_OVERLAP). */
    INFRACTIONS_INTERVAL: duration('60s'),
    /** The key the adapter signs the PSP's facts with (pix.events.*): payments applies no other. */
    FACT_SIGNING_KEY: factSigningKey(),
  })
  .superRefine((env, ctx) => {
    if (env.PSP_CALLBACK_PINS.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['PSP_CALLBACK_PINS'], message: 'PSP_CALLBACK_PINS is required' });
    }
    if (env.LIVE_PSP_API_URL === undefined) return;
    for (const name of LIVE_REQUIRED) {
      if (env[name] === undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required with LIVE_PSP_API_URL` });
      }
    }
    if (env.LIVE_PSP_CALLBACK_PINS.length === 0) {
      const message = 'LIVE_PSP_CALLBACK_PINS is required with LIVE_PSP_API_URL';
      ctx.addIssue({ code: 'custom', path: ['LIVE_PSP_CALLBACK_PINS'], message });
    }
    if (env.LIVE_PSP_CALLBACK_PORT === env.HTTP_PORT) {
      const message = 'LIVE_PSP_CALLBACK_PORT must differ from HTTP_PORT: each connection has its callback server';
      ctx.addIssue({ code: 'custom', path: ['LIVE_PSP_CALLBACK_PORT'], message });
    }
  });

export const config = loadConfig(adapterEnv);
export type Config = typeof config;
