import fs from 'node:fs';
import { isUserPublicKey, NATS_IDENTITIES, type NatsIdentity } from '@pix/contracts';
import { z } from 'zod';

const cidr = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'an IPv4 CIDR such as 203.0.113.0/24');

/**
 * A backing service (NATS, MongoDB) either runs in the cluster as a StatefulSet, or is a managed
 * one reached by URL; then the services' egress is opened to its address ranges only.
 */
const inCluster = z.object({
  inCluster: z.literal(true),
  replicas: z.number().int().min(1),
  storage: z.string(),
});
const managed = z.object({ inCluster: z.literal(false), cidrs: z.array(cidr).min(1) });

/**
 * Each NATS identity's nkey public keys (`node k8s/build/nats-keys.js` makes them): one, or two
 * while a key is rotated. Public keys only; each seed lives in the Secret pix-nats-<identity>.
 */
const publicKeys = z.object(
  Object.fromEntries(
    NATS_IDENTITIES.map((identity) => [
      identity,
      z.array(z.string().refine(isUserPublicKey, 'an nkey user public key (U…, 56 characters)')).min(1).max(2),
    ]),
  ) as Record<NatsIdentity, z.ZodArray<z.ZodString>>,
);

const httpsUrl = z.url({ protocol: /^https$/, error: 'an https:// URL' });

/**
 * A PSP connection to a PSP outside the cluster, by its public parts: the live one, or test mode's
 * at a PSP's homologation environment when the simulator is off. Its credentials (OAuth2 client,
 * client certificate, the PSP's CAs, the callback server's certificate) are in Secrets the SRE
 * creates, mounted into the adapter alone (k8s/src/psp-connection.ts; docs/go-live.md names each).
 */
const pspConnection = z.object({
  /** Base of the PSP's API Pix, …/v2 (PIX_API_URL, LIVE_PSP_API_URL). */
  apiUrl: httpsUrl,
  /** The PSP's OAuth2 token endpoint (…_OAUTH_URL); without it, /oauth/token on apiUrl's host. */
  oauthUrl: httpsUrl.optional(),
  /** The receiver's Pix key, written into every charge (…_RECEIVER_KEY): a public value. */
  receiverKey: z.string().min(1),
  /**
   * The name the PSP calls back at: the callback server certificate's name, registered at the PSP
   * by the adapter as it starts as https://<callbackHost>/psp/callbacks (…_CALLBACK_URL), and
   * given to external-dns on the connection's callback route.
   */
  callbackHost: z.hostname(),
  /** The cloud's annotations for the callback route's load balancer (a network one: TLS passes through). */
  callbackServiceAnnotations: z.record(z.string(), z.string()).default({}),
  /** Where the PSP's API lives: the adapter's egress to it, on the ports of apiUrl and oauthUrl. */
  apiCidrs: z.array(cidr).min(1),
  /** Where the PSP's callbacks come from: the only sources of the callback route (none, no route). */
  callbackCidrs: z.array(cidr),
  /**
   * Which client certificates of the PSP's CA are the PSP's own (…_CALLBACK_PINS):
   * `sha256/<base64 SPKI digest>`, `dns:<name>` or `cn:<name>`, checked by the adapter at start.
   * Public values.
   */
  callbackPins: z.array(z.string().min(1)).min(1),
  /**
   * Its calls, sized from what the PSP publishes (…_TIMEOUT, …_RETRY_LIMIT, …_MAX_CONNECTIONS):
   * each attempt's timeout (`10s`), the retries, the connections open to it per adapter replica.
   * Each absent is the adapter's own (5s, 3, 64; the live connection's, the test one's).
   */
  calls: z
    .strictObject({
      timeout: z
        .string()
        .regex(/^\d+(\.\d+)?(ms|s|m)$/, 'a duration such as 500ms, 10s or 1m')
        .optional(),
      retryLimit: z.number().int().min(0).max(10).optional(),
      maxConnections: z.number().int().min(1).max(1000).optional(),
    })
    .default({}),
});

export const SettingsSchema = z.object({
  namespace: z.string().min(1),
  /** Images are `<repository>/<service>:<tag>`, built from the repository's Dockerfile. */
  image: z.object({ repository: z.string().min(1), tag: z.string().min(1) }),
  /** Host of the public API; PUBLIC_BASE_URL (the base of qrCodeUrl) is https://<publicHost>. */
  publicHost: z.string().min(1),
  ingress: z.object({
    className: z.string().min(1),
    tlsSecretName: z.string().min(1),
    /** Namespace of the ingress controller: the only source allowed to reach the gateway. */
    controllerNamespace: z.string().min(1),
    /**
     * The proxies before the gateway that each add the address they were reached from to
     * X-Forwarded-For: the ingress controller is 1; a load balancer before it whose entry the
     * controller keeps (ingress-nginx's use-forwarded-headers) adds 1. The gateway's TRUST_PROXY:
     * what it counts refused tokens and public requests by is the client address the outermost
     * of them saw; one more than there are would let a client name any address it likes.
     */
    proxyHops: z.number().int().min(1).max(10),
  }),
  monitoring: z.object({
    /** Namespace of Prometheus: the only source allowed to scrape the ops ports. */
    namespace: z.string().min(1),
    /** true: alert rules as a PrometheusRule (needs the Prometheus Operator); false: a ConfigMap. */
    prometheusOperator: z.boolean(),
  }),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']),
  nats: z.discriminatedUnion('inCluster', [
    inCluster.extend({ publicKeys }),
    managed.extend({
      /** tls://… when it speaks TLS: the services then verify it with the CA in the Secret pix-nats-ca. */
      url: z.string().regex(/^(nats|tls):\/\//),
      /** Copies of each stream on the managed cluster (JETSTREAM_REPLICAS). */
      streamReplicas: z.number().int().min(1).max(5),
      publicKeys,
    }),
  ]),
  /**
   * Where the in-cluster servers' TLS certificates come from. `certManager`: cert-manager issues
   * them into Secrets, from `issuer` (an Issuer or ClusterIssuer of the cluster's that fills
   * `ca.crt`), or without one from a CA of the namespace's own that the app creates. Without
   * cert-manager the Secrets are made by hand (docs/deploy.md).
   */
  tls: z.object({
    certManager: z.boolean(),
    issuer: z.object({ kind: z.enum(['Issuer', 'ClusterIssuer']), name: z.string().min(1) }).optional(),
  }),
  /**
   * A managed MongoDB's URL carries credentials, so it comes from the Secret pix-mongodb (key url).
   * In the cluster, `engine` says what runs: `mongodb`, the replica set (production); `local`, the
   * local engine image (PostgreSQL with DocumentDB and FerretDB, `make images`) as one member, for
   * a small node that has no MongoDB image (k8s/small-node.json). The local engine has no logins
   * and no TLS, as in compose: only its NetworkPolicy guards it.
   */
  mongodb: z.discriminatedUnion('inCluster', [
    inCluster.extend({ engine: z.enum(['mongodb', 'local']).default('mongodb') }),
    managed,
  ]),
  /**
   * What share of their CPU requests the pods ask for (limits unchanged): 1 in production; a small
   * node's profile lowers it so that every replica fits one node.
   */
  cpuRequestScale: z.number().gt(0).max(1).default(1),
  /**
   * Components of the namespace that the webhook dispatcher may deliver to, besides the public
   * internet: none in production. A test cluster names its merchant receiver; the dispatcher then
   * allows private targets (WEBHOOK_ALLOW_PRIVATE_TARGETS) and its NetworkPolicy opens to those pods only.
   */
  webhookReceivers: z.array(z.string().min(1)).default([]),
  /**
   * The adapter's PSP connections, side by side in one process: test mode's, always (the PSP
   * simulator, or a PSP's homologation environment in `test`), and live mode's when `live` is
   * present. No mode is a setting of the deployment: a store's token says which one it is.
   */
  psp: z
    // Strict: a settings file of before (psp.provider, the ranges beside `live`) is refused, not
    // read without them.
    .strictObject({
      /** The live connection (LIVE_PSP_*); absent, the platform takes no live payment. */
      live: pspConnection.optional(),
      /** Test mode's connection at an external PSP (PIX_*), only with the simulator off. */
      test: pspConnection.optional(),
      /**
       * The PSP simulator (services/psp-simulator), a Deployment of its own and test mode's PSP,
       * on by default: the adapter's test connection speaks API Pix to it over mutual TLS, with the
       * Secrets pix-psp-simulator-* (k8s/src/psp-simulator.ts; docs/deploy.md names each).
       */
      simulator: z
        .object({
          enabled: z.boolean().default(true),
          /** The receiver's Pix key at the simulator (the test connection's PIX_RECEIVER_KEY): a public value. */
          receiverKey: z.string().min(1).default('recebimentos@pix.local'),
          /**
           * Which client certificates of the simulator's CA are its callbacks' (the test connection's
           * PSP_CALLBACK_PINS): its CA also signs the platform's client certificate. Public values.
           */
          callbackPins: z.array(z.string().min(1)).min(1).default(['cn:psp-callback-client']),
        })
        .prefault({}),
    })
    .superRefine((psp, ctx) => {
      // Test mode has exactly one PSP: the simulator, or the homologation environment in `test`.
      if (psp.simulator.enabled && psp.test) {
        const message = 'only with psp.simulator.enabled false: the simulator is the test connection';
        ctx.addIssue({ code: 'custom', path: ['test'], message });
      }
      if (!psp.simulator.enabled && !psp.test) {
        const message = "required with psp.simulator.enabled false: test mode's PSP (a homologation environment)";
        ctx.addIssue({ code: 'custom', path: ['test'], message });
      }
    }),
});
export type Settings = z.infer<typeof SettingsSchema>;
/** The MongoDB of the cluster's own: the replica set, or the local engine on a small node. */
export type InClusterMongo = Extract<Settings['mongodb'], { inCluster: true }>;

/** A CPU request in millicores as the settings scale it (never below 5m). */
export function cpuRequestMillis(settings: Settings, millis: number): number {
  return Math.max(5, Math.round(millis * settings.cpuRequestScale));
}

export function loadSettings(file: string): Settings {
  const parsed = SettingsSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n');
    throw new Error(`invalid settings in ${file}:\n${problems}`);
  }
  return parsed.data;
}
