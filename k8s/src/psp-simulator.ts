import { Duration, Size, type Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { MONGO_CA_DIR, MONGO_DATABASE, MONGO_TLS_SECRET, mongoUserSecret, type MongoLogin } from './mongodb';
import { SIMULATOR_CONNECTION_SECRETS, secretDir } from './psp-connection';
import { PSP_SIMULATOR, labelsOf } from './services';
import { cpuRequestMillis, type Settings } from './settings';
import {
  APP_CONTAINER_SECURITY,
  APP_UID,
  SHUTDOWN_GRACE,
  TERMINATION_GRACE_SECONDS,
  mongoUrl,
  opsProbes,
  usesMongoLogins,
} from './workloads';

/**
 * The PSP simulator's own credentials: Secrets the SRE creates (docs/deploy.md), referenced by these
 * names and keys, mounted into the simulator alone. The OAuth2 client it knows the platform by is
 * the adapter's too (SIMULATOR_CONNECTION_SECRETS.client).
 */
export const SIMULATOR_SECRETS = {
  /** Its API Pix server certificate and key (for the name psp-simulator), and its CA, which signs its clients'. */
  serverTls: { name: 'pix-psp-simulator-server-tls', keys: { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } },
  /** The client certificate and key it calls back with, and the CA of the receivers' callback servers. */
  callerTls: { name: 'pix-psp-simulator-caller-tls', keys: { cert: 'tls.crt', key: 'tls.key', ca: 'ca.crt' } },
} as const;

/** A managed MongoDB: the URL of the simulator's own database, with its credentials, in this key of pix-mongodb. */
export const SIMULATOR_MANAGED_MONGO_URL_KEY = 'psp-simulator-url';

/** Where the simulator finds each Secret's files. */
const SERVER_TLS_DIR = '/etc/psp/server-tls';
const CALLER_TLS_DIR = '/etc/psp/caller-tls';

/**
 * Its state is its own (docs/decisions/psp-simulator.md): a database beside the platform's and the
 * collections its models declare (services/psp-simulator and @pix/sandbox-psp), reached by its login.
 */
export function simulatorLogin(): MongoLogin {
  return {
    name: PSP_SIMULATOR.name,
    database: `${MONGO_DATABASE}_psp`,
    collections: [
      'psp_webhooks',
      'sandbox_psp_cobs',
      'sandbox_psp_infractions',
      'sandbox_psp_pix',
      'sandbox_psp_refunds',
    ],
  };
}

/** Its login's username and password, from the Secret pix-mongodb-psp-simulator. */
function mongoLogin(chart: Chart, name: string): Record<string, kplus.EnvValue> {
  const login = kplus.Secret.fromSecretName(chart, `${name}-mongodb-login`, mongoUserSecret(name));
  return {
    MONGO_USERNAME: kplus.EnvValue.fromSecretValue({ secret: login, key: 'username' }),
    MONGO_PASSWORD: kplus.EnvValue.fromSecretValue({ secret: login, key: 'password' }),
  };
}

/**
 * The simulator, when the settings run it: one replica (its access tokens and faults live in its
 * memory, so a second would refuse the first's tokens), and a Service for API Pix, its back office
 * and its ops port; NetworkPolicies admit the adapter alone to the first two (network-policies.ts).
 */
export function addPspSimulator(chart: Chart, settings: Settings): void {
  if (!settings.psp.simulator.enabled) return;
  const { name } = PSP_SIMULATOR;
  const labels = labelsOf(name);
  const client = SIMULATOR_CONNECTION_SECRETS.client;
  const clientSecret = kplus.Secret.fromSecretName(chart, `${name}-client`, client.name);
  const { serverTls, callerTls } = SIMULATOR_SECRETS;
  const dirs = [
    secretDir(chart, `${name}-server-tls`, serverTls, SERVER_TLS_DIR),
    secretDir(chart, `${name}-caller-tls`, callerTls, CALLER_TLS_DIR),
  ];
  const tmp = kplus.Volume.fromEmptyDir(chart, `${name}-tmp`, 'tmp');
  // The CA that signed the in-cluster MongoDB's certificate: ca.crt alone, never the server's key.
  const mongoCa =
    settings.mongodb.inCluster && settings.mongodb.engine === 'mongodb'
      ? kplus.Volume.fromSecret(
          chart,
          `${name}-mongodb-ca`,
          kplus.Secret.fromSecretName(chart, `${name}-mongodb-tls`, MONGO_TLS_SECRET),
          { name: 'mongodb-ca', items: { 'ca.crt': { path: 'ca.crt' } } },
        )
      : undefined;
  const value = kplus.EnvValue.fromValue;
  const database = simulatorLogin().database;
  const env: Record<string, kplus.EnvValue> = {
    LOG_LEVEL: value(settings.logLevel),
    SHUTDOWN_GRACE: value(SHUTDOWN_GRACE),
    MONGO_URL: settings.mongodb.inCluster
      ? value(mongoUrl(settings.mongodb, database))
      : kplus.EnvValue.fromSecretValue({
          secret: kplus.Secret.fromSecretName(chart, `${name}-mongodb-url`, 'pix-mongodb'),
          key: SIMULATOR_MANAGED_MONGO_URL_KEY,
        }),
    ...(usesMongoLogins(settings) ? mongoLogin(chart, name) : {}),
    OPS_HOST: value('0.0.0.0'),
    OPS_PORT: value(String(PSP_SIMULATOR.opsPort)),
    API_HOST: value('0.0.0.0'),
    API_PORT: value(String(PSP_SIMULATOR.apiPort)),
    BACKOFFICE_HOST: value('0.0.0.0'),
    BACKOFFICE_PORT: value(String(PSP_SIMULATOR.backOfficePort)),
    TLS_CERT_FILE: value(`${SERVER_TLS_DIR}/${serverTls.keys.cert}`),
    TLS_KEY_FILE: value(`${SERVER_TLS_DIR}/${serverTls.keys.key}`),
    TLS_CLIENT_CA_FILE: value(`${SERVER_TLS_DIR}/${serverTls.keys.ca}`),
    CALLBACK_TLS_CERT_FILE: value(`${CALLER_TLS_DIR}/${callerTls.keys.cert}`),
    CALLBACK_TLS_KEY_FILE: value(`${CALLER_TLS_DIR}/${callerTls.keys.key}`),
    CALLBACK_CA_FILE: value(`${CALLER_TLS_DIR}/${callerTls.keys.ca}`),
    OAUTH_CLIENT_ID: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.id }),
    OAUTH_CLIENT_SECRET: kplus.EnvValue.fromSecretValue({ secret: clientSecret, key: client.keys.secret }),
  };
  const deployment = new kplus.Deployment(chart, name, {
    metadata: { name, labels },
    podMetadata: {
      labels,
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(PSP_SIMULATOR.opsPort) },
    },
    replicas: 1,
    // Never two at once: a token one issued is unknown to the other.
    strategy: kplus.DeploymentStrategy.recreate(),
    terminationGracePeriod: Duration.seconds(TERMINATION_GRACE_SECONDS),
    automountServiceAccountToken: false,
    securityContext: { ensureNonRoot: true, user: APP_UID, group: APP_UID, fsGroup: APP_UID },
    volumes: [tmp, ...(mongoCa ? [mongoCa] : []), ...dirs.map((dir) => dir.volume)],
    containers: [
      {
        name,
        image: `${settings.image.repository}/${name}:${settings.image.tag}`,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        ports: [
          { name: 'api', number: PSP_SIMULATOR.apiPort },
          { name: 'back-office', number: PSP_SIMULATOR.backOfficePort },
          { name: 'ops', number: PSP_SIMULATOR.opsPort },
        ],
        envVariables: env,
        volumeMounts: [
          { path: '/tmp', volume: tmp },
          ...(mongoCa ? [{ path: MONGO_CA_DIR, volume: mongoCa, readOnly: true }] : []),
          ...dirs.map((dir) => dir.mount),
        ],
        // About 95 MB resident on make up (docs/decisions/psp-simulator.md), under the image's heap flags.
        resources: {
          cpu: { request: kplus.Cpu.millis(cpuRequestMillis(settings, 50)), limit: kplus.Cpu.millis(500) },
          memory: { request: Size.mebibytes(160), limit: Size.mebibytes(320) },
        },
        ...opsProbes(PSP_SIMULATOR.opsPort),
        securityContext: APP_CONTAINER_SECURITY,
      },
    ],
  });
  new kplus.Service(chart, `${name}-service`, {
    metadata: { name, labels },
    selector: deployment,
    ports: [
      { name: 'api', port: PSP_SIMULATOR.apiPort, targetPort: PSP_SIMULATOR.apiPort },
      { name: 'back-office', port: PSP_SIMULATOR.backOfficePort, targetPort: PSP_SIMULATOR.backOfficePort },
      { name: 'ops', port: PSP_SIMULATOR.opsPort, targetPort: PSP_SIMULATOR.opsPort },
    ],
  });
}
