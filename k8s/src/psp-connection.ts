import type { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { k8s } from 'cdk8s-plus-33';
import { PSP_SIMULATOR, SERVICES, labelsOf, type ServiceSpec } from './services';
import type { Settings } from './settings';

/** The Secrets of one PSP connection as the adapter reads them: their names and keys. */
interface ConnectionSecrets {
  client: { name: string; keys: { id: string; secret: string } };
  apiTls: { name: string; keys: { cert: string; key: string; ca: string } };
  callbackTls: { name: string; keys: { cert: string; key: string } };
  callbackClientCa: { name: string; keys: { ca: string } };
}

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
} as const satisfies ConnectionSecrets;

/**
 * The adapter's side of its connection to the PSP simulator (provider sandbox): the same keys as
 * the live connection's, in Secrets of the simulator's (docs/deploy.md). The OAuth2 client is the
 * one the simulator knows the platform by (k8s/src/psp-simulator.ts mounts it there too).
 */
export const SIMULATOR_CONNECTION_SECRETS = {
  client: { name: 'pix-psp-simulator-client', keys: PSP_SECRETS.client.keys },
  apiTls: { name: 'pix-psp-simulator-api-tls', keys: PSP_SECRETS.apiTls.keys },
  callbackTls: { name: 'pix-psp-simulator-callback-tls', keys: PSP_SECRETS.callbackTls.keys },
  callbackClientCa: { name: 'pix-psp-simulator-callback-client-ca', keys: PSP_SECRETS.callbackClientCa.keys },
} as const satisfies ConnectionSecrets;

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

/**
 * A Secret's keys as files in a folder of a pod: only the keys named (a cert-manager Secret's
 * ca.crt, say, stays out), read-only, readable by the pod's group.
 */
export function secretDir(
  chart: Chart,
  id: string,
  secret: { name: string; keys: Record<string, string> },
  path: string,
): { volume: kplus.Volume; mount: kplus.VolumeMount } {
  const items = Object.fromEntries(Object.values(secret.keys).map((key) => [key, { path: key }]));
  const volume = kplus.Volume.fromSecret(chart, id, kplus.Secret.fromSecretName(chart, `${id}-secret`, secret.name), {
    name: id,
    defaultMode: 0o440,
    items,
  });
  return { volume, mount: { path, volume, readOnly: true } };
}

/** What the adapter holds of its PSP connection: its env and the Secrets' files. */
export interface ConnectionFiles extends SecretFiles {
  env: Record<string, kplus.EnvValue>;
}

/** The public parts of a connection: where the PSP is, the receiver's key and where it calls back. */
interface ConnectionValues {
  apiUrl: string;
  oauthUrl?: string;
  receiverKey: string;
  callbackUrl: string;
  callbackPins: string[];
}

/**
 * The adapter's PSP connection: the live one (provider apipix), or the PSP simulator's (sandbox),
 * with the same variables and files either way; the code path is the same.
 */
export function adapterConnectionFiles(chart: Chart, settings: Settings): ConnectionFiles {
  const live = liveConnection(settings);
  if (live) {
    return connectionFiles(chart, PSP_SECRETS, {
      ...live,
      // Registered at the PSP by the adapter as it starts (PUT /webhook/{chave}).
      callbackUrl: `https://${live.callbackHost}/psp/callbacks`,
      callbackPins: settings.psp.callbackPins,
    });
  }
  // The simulator's Service, and the adapter's, by their names in the namespace: the names of
  // their server certificates (docs/deploy.md).
  const api = `https://${PSP_SIMULATOR.name}:${PSP_SIMULATOR.apiPort}`;
  const adapter = SERVICES.find((spec) => spec.name === 'pix-provider-adapter')!;
  const { simulator } = settings.psp;
  const files = connectionFiles(chart, SIMULATOR_CONNECTION_SECRETS, {
    apiUrl: `${api}/v2`,
    oauthUrl: `${api}/oauth/token`,
    receiverKey: simulator.receiverKey,
    callbackUrl: `https://${adapter.name}:${adapter.httpPort!.port}/psp/callbacks`,
    callbackPins: simulator.callbackPins,
  });
  // The payer and the PSP's staff, whom the adapter asks for the gateway's sandbox routes (plain
  // HTTP, admitted from the adapter only).
  files.env.PSP_BACKOFFICE_URL = kplus.EnvValue.fromValue(
    `http://${PSP_SIMULATOR.name}:${PSP_SIMULATOR.backOfficePort}`,
  );
  return files;
}

function connectionFiles(chart: Chart, secrets: ConnectionSecrets, values: ConnectionValues): ConnectionFiles {
  const { client, apiTls, callbackTls, callbackClientCa } = secrets;
  const clientSecret = kplus.Secret.fromSecretName(chart, 'psp-client-secret', client.name);
  const dirs = [
    secretDir(chart, 'psp-api-tls', apiTls, API_TLS_DIR),
    secretDir(chart, 'psp-callback-tls', callbackTls, CALLBACK_TLS_DIR),
    secretDir(chart, 'psp-callback-client-ca', callbackClientCa, CALLBACK_CLIENT_CA_DIR),
  ];
  return {
    env: {
      PIX_API_URL: kplus.EnvValue.fromValue(values.apiUrl),
      ...(values.oauthUrl ? { PIX_OAUTH_URL: kplus.EnvValue.fromValue(values.oauthUrl) } : {}),
      PIX_RECEIVER_KEY: kplus.EnvValue.fromValue(values.receiverKey),
      PIX_CALLBACK_URL: kplus.EnvValue.fromValue(values.callbackUrl),
      PIX_CLIENT_ID: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.id }),
      PIX_CLIENT_SECRET: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.secret }),
      PIX_TLS_CERT_FILE: kplus.EnvValue.fromValue(`${API_TLS_DIR}/${apiTls.keys.cert}`),
      PIX_TLS_KEY_FILE: kplus.EnvValue.fromValue(`${API_TLS_DIR}/${apiTls.keys.key}`),
      PIX_TLS_CA_FILE: kplus.EnvValue.fromValue(`${API_TLS_DIR}/${apiTls.keys.ca}`),
      CALLBACK_TLS_CERT_FILE: kplus.EnvValue.fromValue(`${CALLBACK_TLS_DIR}/${callbackTls.keys.cert}`),
      CALLBACK_TLS_KEY_FILE: kplus.EnvValue.fromValue(`${CALLBACK_TLS_DIR}/${callbackTls.keys.key}`),
      CALLBACK_CLIENT_CA_FILE: kplus.EnvValue.fromValue(`${CALLBACK_CLIENT_CA_DIR}/${callbackClientCa.keys.ca}`),
      PSP_CALLBACK_PINS: kplus.EnvValue.fromValue(values.callbackPins.join(',')),
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
