import type { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { k8s } from 'cdk8s-plus-33';
import { labelsOf, type ServiceSpec } from './services';
import type { Settings } from './settings';

/**
 * The live PSP connection's credentials: Secrets the SRE creates (docs/go-live.md), referenced by
 * these names and keys and never written into a manifest; each reaches the adapter alone.
 */
export const PSP_SECRETS = {
  /** The OAuth2 client the PSP registered for the platform (PIX_CLIENT_ID, PIX_CLIENT_SECRET). */
  client: { name: 'pix-psp-client', keys: { id: 'client-id', secret: 'client-secret' } },
  /** The client certificate and key the PSP issued, and the CA of the PSP's API server. */
  apiTls: { name: 'pix-psp-api-tls', keys: { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } },
  /** The callback endpoint's server certificate and key (for callbackHost): a kubernetes.io/tls Secret. */
  callbackTls: { name: 'pix-psp-callback-tls', keys: { cert: 'tls.crt', key: 'tls.key' } },
  /** The CA of the client certificates the PSP calls back with (the pins say which are the PSP's). */
  callbackClientCa: { name: 'pix-psp-callback-client-ca', keys: { ca: 'ca.crt' } },
} as const;

/** Where the adapter finds each Secret's files. */
const API_TLS_DIR = '/etc/pix/psp-api';
const CALLBACK_TLS_DIR = '/etc/pix/psp-callback-tls';
const CALLBACK_CLIENT_CA_DIR = '/etc/pix/psp-callback-client-ca';

/** The callback route's own port: what the PSP's callback URL (https://<callbackHost>/…) reaches. */
const CALLBACK_ROUTE_PORT = 443;

type LiveConnection = NonNullable<Settings['psp']['live']>;

/** The live connection, when the adapter uses it (provider apipix). */
export function liveConnection(settings: Settings): LiveConnection | undefined {
  return settings.psp.provider === 'apipix' ? settings.psp.live : undefined;
}

/**
 * The PSP's address ranges the callback route admits: the live connection's callbacks, from the
 * ranges the settings name; none (no route) without either.
 */
export function callbackRouteSources(settings: Settings): string[] {
  return liveConnection(settings) ? settings.psp.callbackCidrs : [];
}

/** The ports of the PSP's API and OAuth2 endpoint, which the adapter's egress opens to its ranges. */
export function pspApiPorts(settings: Settings): number[] {
  const live = liveConnection(settings);
  if (!live) return [443];
  const urls = [live.apiUrl, live.oauthUrl ?? live.apiUrl].map((url) => new URL(url));
  return [...new Set(urls.map((url) => Number(url.port || 443)))];
}

/** Files of Secrets a pod mounts read-only. */
export interface SecretFiles {
  volumes: kplus.Volume[];
  mounts: kplus.VolumeMount[];
}

/** What the adapter holds of the live connection: its env and the Secrets' files. */
export interface LiveConnectionFiles extends SecretFiles {
  env: Record<string, kplus.EnvValue>;
}

export function liveConnectionFiles(chart: Chart, live: LiveConnection): LiveConnectionFiles {
  const { client, apiTls, callbackTls, callbackClientCa } = PSP_SECRETS;
  const clientSecret = kplus.Secret.fromSecretName(chart, 'psp-client-secret', client.name);
  /** Only the keys named (a cert-manager Secret's ca.crt, say, stays out), readable by the pod's group. */
  const secretDir = (id: string, secret: { name: string; keys: Record<string, string> }, path: string) => {
    const items = Object.fromEntries(Object.values(secret.keys).map((key) => [key, { path: key }]));
    const volume = kplus.Volume.fromSecret(chart, id, kplus.Secret.fromSecretName(chart, `${id}-secret`, secret.name), {
      name: id,
      defaultMode: 0o440,
      items,
    });
    return { volume, mount: { path, volume, readOnly: true } };
  };
  const dirs = [
    secretDir('psp-api-tls', apiTls, API_TLS_DIR),
    secretDir('psp-callback-tls', callbackTls, CALLBACK_TLS_DIR),
    secretDir('psp-callback-client-ca', callbackClientCa, CALLBACK_CLIENT_CA_DIR),
  ];
  return {
    env: {
      PIX_API_URL: kplus.EnvValue.fromValue(live.apiUrl),
      ...(live.oauthUrl ? { PIX_OAUTH_URL: kplus.EnvValue.fromValue(live.oauthUrl) } : {}),
      PIX_RECEIVER_KEY: kplus.EnvValue.fromValue(live.receiverKey),
      // Registered at the PSP by the adapter as it starts (PUT /webhook/{chave}).
      PIX_CALLBACK_URL: kplus.EnvValue.fromValue(`https://${live.callbackHost}/psp/callbacks`),
      PIX_CLIENT_ID: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.id }),
      PIX_CLIENT_SECRET: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.secret }),
      PIX_TLS_CERT_FILE: kplus.EnvValue.fromValue(`${API_TLS_DIR}/${apiTls.keys.cert}`),
      PIX_TLS_KEY_FILE: kplus.EnvValue.fromValue(`${API_TLS_DIR}/${apiTls.keys.key}`),
      PIX_TLS_CA_FILE: kplus.EnvValue.fromValue(`${API_TLS_DIR}/${apiTls.keys.ca}`),
      CALLBACK_TLS_CERT_FILE: kplus.EnvValue.fromValue(`${CALLBACK_TLS_DIR}/${callbackTls.keys.cert}`),
      CALLBACK_TLS_KEY_FILE: kplus.EnvValue.fromValue(`${CALLBACK_TLS_DIR}/${callbackTls.keys.key}`),
      CALLBACK_CLIENT_CA_FILE: kplus.EnvValue.fromValue(`${CALLBACK_CLIENT_CA_DIR}/${callbackClientCa.keys.ca}`),
    },
    volumes: dirs.map((dir) => dir.volume),
    mounts: dirs.map((dir) => dir.mount),
  };
}

/**
 * The PSP's way in to the adapter's callback port, a route of its own (docs/decisions/
 * callback-route.md): a network load balancer that passes TLS through, so the PSP's client
 * certificate reaches the adapter, which alone ends the mutual TLS. `Local` keeps the PSP's own
 * address on each connection, which the NetworkPolicy admits by; the load balancer admits the same
 * ranges before it. Nothing without the live connection or the PSP's ranges.
 */
export function addCallbackRoute(chart: Chart, settings: Settings, adapter: ServiceSpec): void {
  const live = liveConnection(settings);
  const sources = callbackRouteSources(settings);
  if (!live || sources.length === 0) return;
  const name = `${adapter.name}-callbacks`;
  new k8s.KubeService(chart, name, {
    metadata: {
      name,
      labels: labelsOf(adapter.name),
      annotations: {
        ...live.callbackServiceAnnotations,
        'external-dns.alpha.kubernetes.io/hostname': live.callbackHost,
      },
    },
    spec: {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      loadBalancerSourceRanges: sources,
      selector: labelsOf(adapter.name),
      ports: [
        {
          name: adapter.httpPort!.name,
          protocol: 'TCP',
          port: CALLBACK_ROUTE_PORT,
          targetPort: k8s.IntOrString.fromString(adapter.httpPort!.name),
        },
      ],
    },
  });
}
