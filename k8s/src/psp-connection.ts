import type { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { k8s } from 'cdk8s-plus-33';
import { PSP_SIMULATOR, SERVICES, labelsOf } from './services';
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
  /** The OAuth2 client the PSP registered for the platform (LIVE_PSP_CLIENT_ID, LIVE_PSP_CLIENT_SECRET). */
  client: { name: 'pix-psp-client', keys: { id: 'client-id', secret: 'client-secret' } },
  /** The client certificate and key the PSP issued, and the CA of the PSP's API server. */
  apiTls: { name: 'pix-psp-api-tls', keys: { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } },
  /** The callback endpoint's server certificate and key (for callbackHost): a kubernetes.io/tls Secret. */
  callbackTls: { name: 'pix-psp-callback-tls', keys: { cert: 'tls.crt', key: 'tls.key' } },
  /** The CA of the client certificates the PSP calls back with (the pins say which are the PSP's). */
  callbackClientCa: { name: 'pix-psp-callback-client-ca', keys: { ca: 'ca.crt' } },
} as const satisfies ConnectionSecrets;

/** Test mode's connection at a PSP's homologation environment (psp.test): the live ones' keys, its own names. */
export const TEST_PSP_SECRETS = {
  client: { name: 'pix-psp-test-client', keys: PSP_SECRETS.client.keys },
  apiTls: { name: 'pix-psp-test-api-tls', keys: PSP_SECRETS.apiTls.keys },
  callbackTls: { name: 'pix-psp-test-callback-tls', keys: PSP_SECRETS.callbackTls.keys },
  callbackClientCa: { name: 'pix-psp-test-callback-client-ca', keys: PSP_SECRETS.callbackClientCa.keys },
} as const satisfies ConnectionSecrets;

/**
 * Test mode's connection to the PSP simulator: the same keys, in Secrets of the simulator's
 * (docs/deploy.md). The OAuth2 client is the one the simulator knows the platform by
 * (k8s/src/psp-simulator.ts mounts it there too).
 */
export const SIMULATOR_CONNECTION_SECRETS = {
  client: { name: 'pix-psp-simulator-client', keys: PSP_SECRETS.client.keys },
  apiTls: { name: 'pix-psp-simulator-api-tls', keys: PSP_SECRETS.apiTls.keys },
  callbackTls: { name: 'pix-psp-simulator-callback-tls', keys: PSP_SECRETS.callbackTls.keys },
  callbackClientCa: { name: 'pix-psp-simulator-callback-client-ca', keys: PSP_SECRETS.callbackClientCa.keys },
} as const satisfies ConnectionSecrets;

/** The adapter's two connections, side by side in one process: test mode's and live mode's. */
export type ConnectionName = 'test' | 'live';

/** A callback server's port of the adapter: its name on the pod, its number, the variable that sets it. */
export interface CallbackPort {
  name: string;
  port: number;
  env: string;
}

const ADAPTER = SERVICES.find((spec) => spec.name === 'pix-provider-adapter')!;

/**
 * Where each connection lives in the adapter: its variables (test mode's keep the names of the
 * one connection the adapter had; live mode's are LIVE_PSP_*), its Secrets' folders, its callback
 * server's port and the Service of its callback route.
 */
const LAYOUT = {
  test: {
    variables: {
      apiUrl: 'PIX_API_URL',
      oauthUrl: 'PIX_OAUTH_URL',
      clientId: 'PIX_CLIENT_ID',
      clientSecret: 'PIX_CLIENT_SECRET',
      receiverKey: 'PIX_RECEIVER_KEY',
      callbackUrl: 'PIX_CALLBACK_URL',
      tlsCert: 'PIX_TLS_CERT_FILE',
      tlsKey: 'PIX_TLS_KEY_FILE',
      tlsCa: 'PIX_TLS_CA_FILE',
      callbackPins: 'PSP_CALLBACK_PINS',
      callbackTlsCert: 'CALLBACK_TLS_CERT_FILE',
      callbackTlsKey: 'CALLBACK_TLS_KEY_FILE',
      callbackClientCa: 'CALLBACK_CLIENT_CA_FILE',
      timeout: 'PIX_TIMEOUT',
      retryLimit: 'PIX_RETRY_LIMIT',
      maxConnections: 'PIX_MAX_CONNECTIONS',
    },
    volumePrefix: '',
    dirPrefix: '/etc/pix/psp',
    /** HTTP_PORT, which workloads.ts sets from the adapter's ServiceSpec. */
    callbackPort: ADAPTER.httpPort!,
    route: `${ADAPTER.name}-test-callbacks`,
  },
  live: {
    variables: {
      apiUrl: 'LIVE_PSP_API_URL',
      oauthUrl: 'LIVE_PSP_OAUTH_URL',
      clientId: 'LIVE_PSP_CLIENT_ID',
      clientSecret: 'LIVE_PSP_CLIENT_SECRET',
      receiverKey: 'LIVE_PSP_RECEIVER_KEY',
      callbackUrl: 'LIVE_PSP_CALLBACK_URL',
      tlsCert: 'LIVE_PSP_TLS_CERT_FILE',
      tlsKey: 'LIVE_PSP_TLS_KEY_FILE',
      tlsCa: 'LIVE_PSP_TLS_CA_FILE',
      callbackPins: 'LIVE_PSP_CALLBACK_PINS',
      callbackTlsCert: 'LIVE_PSP_CALLBACK_TLS_CERT_FILE',
      callbackTlsKey: 'LIVE_PSP_CALLBACK_TLS_KEY_FILE',
      callbackClientCa: 'LIVE_PSP_CALLBACK_CLIENT_CA_FILE',
      timeout: 'LIVE_PSP_TIMEOUT',
      retryLimit: 'LIVE_PSP_RETRY_LIMIT',
      maxConnections: 'LIVE_PSP_MAX_CONNECTIONS',
    },
    volumePrefix: 'live-',
    dirPrefix: '/etc/pix/live-psp',
    callbackPort: { name: 'live-callbacks', port: 8082, env: 'LIVE_PSP_CALLBACK_PORT' },
    route: `${ADAPTER.name}-callbacks`,
  },
} as const satisfies Record<ConnectionName, unknown>;

/** The callback route's own port: what the PSP's callback URL (https://<callbackHost>/…) reaches. */
const CALLBACK_ROUTE_PORT = 443;

/** A connection to a PSP outside the cluster, as the settings give it (psp.live, psp.test). */
export type PspConnection = NonNullable<Settings['psp']['live']>;

/** A connection to a PSP outside the cluster, with which of the adapter's it is and where it calls back. */
export interface ExternalConnection {
  name: ConnectionName;
  connection: PspConnection;
  secrets: ConnectionSecrets;
  callbackPort: CallbackPort;
}

/**
 * The connections to PSPs outside the cluster, each with its ranges: live mode's when the settings
 * hold one, and test mode's when it is a homologation environment rather than the simulator.
 */
export function externalConnections(settings: Settings): ExternalConnection[] {
  const { live, test } = settings.psp;
  return [
    ...(test ? [{ name: 'test' as const, connection: test, secrets: TEST_PSP_SECRETS }] : []),
    ...(live ? [{ name: 'live' as const, connection: live, secrets: PSP_SECRETS }] : []),
  ].map((external) => ({ ...external, callbackPort: LAYOUT[external.name].callbackPort }));
}

/** The ports of a PSP's API and OAuth2 endpoint, which the adapter's egress opens to its ranges. */
export function pspApiPorts(connection: PspConnection): number[] {
  const urls = [connection.apiUrl, connection.oauthUrl ?? connection.apiUrl].map((url) => new URL(url));
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

/** What the adapter holds of its PSP connections: their env, the Secrets' files, the callback ports. */
export interface ConnectionFiles extends SecretFiles {
  env: Record<string, kplus.EnvValue>;
  /** The container's ports besides ops and HTTP_PORT: the live connection's callback server. */
  ports: kplus.ContainerPort[];
}

/** The public parts of a connection: where the PSP is, the receiver's key and where it calls back. */
interface ConnectionValues {
  apiUrl: string;
  oauthUrl?: string;
  receiverKey: string;
  callbackUrl: string;
  callbackPins: string[];
  /** Its calls' settings, each absent left to the adapter's default. */
  calls?: PspConnection['calls'];
}

/** Registered at the PSP by the adapter as it starts (PUT /webhook/{chave}): its callback route's name. */
const callbackUrlAt = (connection: PspConnection): ConnectionValues => ({
  ...connection,
  callbackUrl: `https://${connection.callbackHost}/psp/callbacks`,
});

/**
 * The adapter's PSP connections, with the same code path for each: test mode's (the simulator,
 * or the homologation environment of psp.test) and, with psp.live, live mode's beside it.
 */
export function adapterConnectionFiles(chart: Chart, settings: Settings): ConnectionFiles {
  const { live, test, simulator } = settings.psp;
  const files = test
    ? connectionFiles(chart, 'test', TEST_PSP_SECRETS, callbackUrlAt(test))
    : simulatorConnectionFiles(chart, simulator);
  if (!live) return files;
  const liveFiles = connectionFiles(chart, 'live', PSP_SECRETS, callbackUrlAt(live));
  const { callbackPort } = LAYOUT.live;
  return {
    env: { ...files.env, ...liveFiles.env, [callbackPort.env]: kplus.EnvValue.fromValue(String(callbackPort.port)) },
    volumes: [...files.volumes, ...liveFiles.volumes],
    mounts: [...files.mounts, ...liveFiles.mounts],
    ports: [{ name: callbackPort.name, number: callbackPort.port }],
  };
}

/** Test mode's connection to the PSP simulator, by the names of its Service and the adapter's. */
function simulatorConnectionFiles(chart: Chart, simulator: Settings['psp']['simulator']): ConnectionFiles {
  // The names of their server certificates (docs/deploy.md).
  const api = `https://${PSP_SIMULATOR.name}:${PSP_SIMULATOR.apiPort}`;
  const files = connectionFiles(chart, 'test', SIMULATOR_CONNECTION_SECRETS, {
    apiUrl: `${api}/v2`,
    oauthUrl: `${api}/oauth/token`,
    receiverKey: simulator.receiverKey,
    callbackUrl: `https://${ADAPTER.name}:${ADAPTER.httpPort!.port}/psp/callbacks`,
    callbackPins: simulator.callbackPins,
  });
  // The payer and the PSP's staff, whom the adapter asks for the gateway's sandbox routes (plain
  // HTTP, admitted from the adapter only).
  files.env.PSP_BACKOFFICE_URL = kplus.EnvValue.fromValue(
    `http://${PSP_SIMULATOR.name}:${PSP_SIMULATOR.backOfficePort}`,
  );
  return files;
}

/** The variables of the call settings a connection gives; one it leaves out is the adapter's default. */
function callsEnv(
  v: (typeof LAYOUT)[ConnectionName]['variables'],
  calls: PspConnection['calls'],
): Record<string, kplus.EnvValue> {
  const given: [string, string | number | undefined][] = [
    [v.timeout, calls.timeout],
    [v.retryLimit, calls.retryLimit],
    [v.maxConnections, calls.maxConnections],
  ];
  return Object.fromEntries(
    given.flatMap(([name, setting]) =>
      setting === undefined ? [] : [[name, kplus.EnvValue.fromValue(String(setting))]],
    ),
  );
}

function connectionFiles(
  chart: Chart,
  name: ConnectionName,
  secrets: ConnectionSecrets,
  values: ConnectionValues,
): ConnectionFiles {
  const { variables: v, volumePrefix, dirPrefix } = LAYOUT[name];
  const { client, apiTls, callbackTls, callbackClientCa } = secrets;
  const clientSecret = kplus.Secret.fromSecretName(chart, `${volumePrefix}psp-client-secret`, client.name);
  const [api, callback, callbackCa] = [
    secretDir(chart, `${volumePrefix}psp-api-tls`, apiTls, `${dirPrefix}-api`),
    secretDir(chart, `${volumePrefix}psp-callback-tls`, callbackTls, `${dirPrefix}-callback-tls`),
    secretDir(chart, `${volumePrefix}psp-callback-client-ca`, callbackClientCa, `${dirPrefix}-callback-client-ca`),
  ];
  const value = kplus.EnvValue.fromValue;
  const file = (dir: { mount: kplus.VolumeMount }, key: string) => value(`${dir.mount.path}/${key}`);
  return {
    env: {
      [v.apiUrl]: value(values.apiUrl),
      ...(values.oauthUrl ? { [v.oauthUrl]: value(values.oauthUrl) } : {}),
      [v.receiverKey]: value(values.receiverKey),
      [v.callbackUrl]: value(values.callbackUrl),
      [v.clientId]: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.id }),
      [v.clientSecret]: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.secret }),
      [v.tlsCert]: file(api, apiTls.keys.cert),
      [v.tlsKey]: file(api, apiTls.keys.key),
      [v.tlsCa]: file(api, apiTls.keys.ca),
      [v.callbackTlsCert]: file(callback, callbackTls.keys.cert),
      [v.callbackTlsKey]: file(callback, callbackTls.keys.key),
      [v.callbackClientCa]: file(callbackCa, callbackClientCa.keys.ca),
      [v.callbackPins]: value(values.callbackPins.join(',')),
      ...callsEnv(v, values.calls ?? {}),
    },
    volumes: [api, callback, callbackCa].map((dir) => dir.volume),
    mounts: [api, callback, callbackCa].map((dir) => dir.mount),
    ports: [],
  };
}

/**
 * The way in of an external PSP to its connection's callback port, a route of its own for each
 * (docs/decisions/callback-route.md): a network load balancer that passes TLS through, so the PSP's
 * client certificate reaches the adapter, which alone ends the mutual TLS. `Local` keeps the PSP's
 * own address on each connection, which the NetworkPolicy admits by; the load balancer admits the
 * same ranges before it. None for a connection without callback ranges, nor for the simulator,
 * which calls back inside the namespace.
 */
export function addCallbackRoutes(chart: Chart, settings: Settings): void {
  for (const { name, connection, callbackPort } of externalConnections(settings)) {
    if (connection.callbackCidrs.length === 0) continue;
    const route = LAYOUT[name].route;
    new k8s.KubeService(chart, route, {
      metadata: {
        name: route,
        labels: labelsOf(ADAPTER.name),
        annotations: {
          ...connection.callbackServiceAnnotations,
          'external-dns.alpha.kubernetes.io/hostname': connection.callbackHost,
        },
      },
      spec: {
        type: 'LoadBalancer',
        externalTrafficPolicy: 'Local',
        loadBalancerSourceRanges: connection.callbackCidrs,
        selector: labelsOf(ADAPTER.name),
        ports: [
          {
            name: callbackPort.name,
            protocol: 'TCP',
            port: CALLBACK_ROUTE_PORT,
            targetPort: k8s.IntOrString.fromString(callbackPort.name),
          },
        ],
      },
    });
  }
}
