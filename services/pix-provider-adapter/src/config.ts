import { CommonEnv, MongoEnv, duration, factSigningKey, loadConfig, port, secret, z } from '@pix/config';
import { PIX_PROVIDERS } from '@pix/contracts';
import { parsePins } from './callback-pins';

const file = z.string().min(1);

/** The adapter's environment, checked once at start (exported for its tests). */
export const adapterEnv = z
  .object({
    ...CommonEnv,
    ...MongoEnv,
    OPS_HOST: z.string().default('127.0.0.1'),
    OPS_PORT: port(9103),
    /** The adapter's own HTTP port: the PSP's payment callbacks arrive here. */
    HTTP_HOST: z.string().default('127.0.0.1'),
    HTTP_PORT: port(8081),
    /**
     * Which PSP the adapter speaks API Pix to: `sandbox`, the PSP simulator (services/psp-simulator),
     * whose back office (PSP_BACKOFFICE_URL) plays the payer for the sandbox routes; `apipix`, a
     * real PSP. The same client, OAuth2, mutual TLS and callback endpoint serve both.
     */
    PIX_PROVIDER: z.enum(PIX_PROVIDERS).default('sandbox'),
    /** sandbox: the simulator's back office (plain HTTP, internal only): its payer and staff. */
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
    /** Per-attempt timeout and retries (with exponential backoff) of calls to the PSP. */
    PIX_TIMEOUT: duration('5s'),
    PIX_RETRY_LIMIT: z.coerce.number().int().min(0).max(10).default(3),
    /**
     * The callback endpoint is HTTPS with mutual TLS: this server certificate and key, and the CA
     * whose client certificates (the PSP's) are accepted.
     */
    CALLBACK_TLS_CERT_FILE: file,
    CALLBACK_TLS_KEY_FILE: file,
    CALLBACK_CLIENT_CA_FILE: file,
    /**
     * Which certificates of that CA are the PSP's (it also certifies the PSP's merchants):
     * a comma list of `sha256/<base64 SPKI digest>`, `dns:<SAN name>` or `cn:<subject CN>`
     * (callback-pins.ts). Public values: no secret.
     */
    PSP_CALLBACK_PINS: z
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
      }),
    /**
     * Reconciliation with the PSP (GET /pix): how often the Pix it received are read, so a lost
     * callback delays a payment by about this much; and how far each window reaches back before the
     * last one's end, for a PSP that lists a Pix a moment after its time.
     */
    RECONCILE_INTERVAL: duration('60s'),
    RECONCILE_OVERLAP: duration('2m'),
    /** The key the adapter signs the PSP's facts with (pix.events.*): payments applies no other. */
    FACT_SIGNING_KEY: factSigningKey(),
  })
  .superRefine((env, ctx) => {
    if (env.PSP_CALLBACK_PINS.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['PSP_CALLBACK_PINS'], message: 'PSP_CALLBACK_PINS is required' });
    }
    if (env.PIX_PROVIDER === 'sandbox' && !env.PSP_BACKOFFICE_URL) {
      const message = 'PSP_BACKOFFICE_URL is required when PIX_PROVIDER=sandbox';
      ctx.addIssue({ code: 'custom', path: ['PSP_BACKOFFICE_URL'], message });
    }
  });

export const config = loadConfig(adapterEnv);
export type Config = typeof config;
