import { CommonEnv, MongoEnv, duration, factSigningKey, loadConfig, port, secret, z } from '@pix/config';
import { PIX_PROVIDERS } from '@pix/contracts';
import { parsePins } from './callback-pins';

const optionalFile = z.string().min(1).optional();

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
    /** sandbox: an embedded PSP simulator; apipix: a real PSP's API Pix. */
    PIX_PROVIDER: z.enum(PIX_PROVIDERS).default('sandbox'),
    /** Merchant name and city written into every BR Code the sandbox PSP makes (EMV fields 59, 60). */
    PIX_MERCHANT_NAME: z.string().min(1).max(25).default('PIX PAYMENTS SANDBOX'),
    PIX_MERCHANT_CITY: z.string().min(1).max(15).default('SAO PAULO'),
    /** The receiver's Pix key (chave) written into every charge. */
    PIX_RECEIVER_KEY: z.string().min(1).default('pix@sandbox.example'),
    /** apipix: OAuth2 client credentials at the PSP. */
    PIX_CLIENT_ID: z.string().min(1).default('sandbox-client'),
    /** Required with apipix (a real PSP's secret has no default); the sandbox PSP takes any. */
    PIX_CLIENT_SECRET: z.string().min(1).optional(),
    /** apipix: base of the PSP's API Pix (…/v2) and its OAuth2 token endpoint. */
    PIX_API_URL: z.url().optional(),
    PIX_OAUTH_URL: z.url().optional(),
    /**
     * apipix: where the PSP is to send its callbacks, registered at start (PUT /webhook/{chave}
     * with the receiver's key) and again until the PSP takes it; the PSP appends `/pix` (API Pix).
     * Unset: the callback URL is registered at the PSP by hand.
     */
    PIX_CALLBACK_URL: z.url().optional(),
    /** apipix: the client certificate and key the PSP issued, and the CA of the PSP's server (PEM files). */
    PIX_TLS_CERT_FILE: optionalFile,
    PIX_TLS_KEY_FILE: optionalFile,
    PIX_TLS_CA_FILE: optionalFile,
    /** Per-attempt timeout and retries (with exponential backoff) of calls to the PSP. */
    PIX_TIMEOUT: duration('5s'),
    PIX_RETRY_LIMIT: z.coerce.number().int().min(0).max(10).default(3),
    /**
     * apipix: the callback endpoint is HTTPS with mutual TLS: this server certificate and key, and
     * the CA whose client certificates (the PSP's) are accepted.
     */
    CALLBACK_TLS_CERT_FILE: optionalFile,
    CALLBACK_TLS_KEY_FILE: optionalFile,
    CALLBACK_CLIENT_CA_FILE: optionalFile,
    /**
     * apipix: which certificates of that CA are the PSP's (it also certifies the PSP's merchants):
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
    /** Host of the sandbox PSP's charge locations (the URL a dynamic BR Code points at). */
    SANDBOX_LOCATION_HOST: z.string().default('pix.sandbox.local'),
    /**
     * Reconciliation with the PSP (GET /pix): how often the Pix it received are read, so a lost
     * callback delays a payment by about this much; and how far each window reaches back before the
     * last one's end, for a PSP that lists a Pix a moment after its time.
     */
    RECONCILE_INTERVAL: duration('60s'),
    RECONCILE_OVERLAP: duration('2m'),
    /**
     * sandbox: the shared secret a PSP simulated by hand presents on the callback endpoint. Required
     * (no default guards a door): `make up` and the tests generate one, Kubernetes reads a Secret.
     */
    PSP_CALLBACK_SECRET: secret(16),
    /** The key the adapter signs the PSP's facts with (pix.events.*): payments applies no other. */
    FACT_SIGNING_KEY: factSigningKey(),
  })
  .superRefine((env, ctx) => {
    if (env.PIX_PROVIDER !== 'apipix') return;
    const required = [
      'PIX_CLIENT_SECRET',
      'PIX_API_URL',
      'PIX_TLS_CERT_FILE',
      'PIX_TLS_KEY_FILE',
      'PIX_TLS_CA_FILE',
      'CALLBACK_TLS_CERT_FILE',
      'CALLBACK_TLS_KEY_FILE',
      'CALLBACK_CLIENT_CA_FILE',
    ] as const;
    for (const name of required) {
      if (!env[name])
        ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when PIX_PROVIDER=apipix` });
    }
    if (env.PSP_CALLBACK_PINS.length === 0) {
      const message = 'PSP_CALLBACK_PINS is required when PIX_PROVIDER=apipix';
      ctx.addIssue({ code: 'custom', path: ['PSP_CALLBACK_PINS'], message });
    }
  })
  .transform((env) => ({ ...env, PIX_CLIENT_SECRET: env.PIX_CLIENT_SECRET ?? 'sandbox-client-secret' }));

export const config = loadConfig(adapterEnv);
export type Config = typeof config;
