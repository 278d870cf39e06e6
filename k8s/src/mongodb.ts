import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { serverCertificate, type IssuerRef } from './certificates';
import { MONGO_PORT, SERVICES, labelsOf } from './services';
import { backingContainerSecurity, backingPodSecurity, headlessService, quantity, storageClaim } from './stateful';

export const MONGO_IMAGE = 'mongo:7.0';
/** The mongo image's own mongodb user. */
const MONGO_UID = 999;
export const MONGO_INIT_COMPONENT = 'mongodb-init';
/** The platform's database: every service's role names collections of it. */
export const MONGO_DATABASE = 'pix';
/** mongosh keeps its history and logs under HOME; the root filesystem is read-only, /tmp is not. */
const MONGOSH_HOME = { name: 'HOME', value: '/tmp' };

/**
 * Secrets the manifests reference and never hold (docs/deploy.md says how to make them): the
 * server certificate (cert-manager writes it), the replica set's shared keyFile, the root user the
 * mongo image creates on an empty volume, and each component's login.
 */
export const MONGO_TLS_SECRET = 'pix-mongodb-tls';
export const MONGO_KEYFILE_SECRET = 'pix-mongodb-keyfile';
export const MONGO_ROOT_SECRET = 'pix-mongodb-root';
export function mongoUserSecret(service: string): string {
  return `pix-mongodb-${service}`;
}
/** Where a client pod mounts the CA (ca.crt alone) that signed MongoDB's certificate. */
export const MONGO_CA_DIR = '/etc/pix/mongodb-ca';

/**
 * What each service's role may do on its own collections: read and write documents, and keep the
 * indexes its schemas declare (syncIndexes at start). No other collection, no other database.
 */
export const MONGO_COLLECTION_ACTIONS = [
  'find',
  'insert',
  'update',
  'remove',
  'createCollection',
  'createIndex',
  'dropIndex',
  'listIndexes',
];

/** A login of its own for one component: its database, and the collections of it its role reaches. */
export interface MongoLogin {
  name: string;
  database: string;
  collections: readonly string[];
}

/** The platform's services' logins, on the platform's database. */
export const SERVICE_LOGINS: MongoLogin[] = SERVICES.filter((spec) => spec.usesMongo).map((spec) => ({
  name: spec.name,
  database: MONGO_DATABASE,
  collections: spec.collections,
}));

const secretEnv = (name: string, secret: string, key: string): k8s.EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});
const envPrefix = (service: string) => service.toUpperCase().replace(/-/g, '_');

/**
 * Run by the init Job as the root user (its password read from the environment, never from its
 * command line): initiates the replica set once (member 0 preferred as primary), waits for the
 * primary, then makes or updates one role per login, whose privileges name only that component's
 * collections, and the component's user with that role alone. Idempotent: every run converges.
 */
export function initScript(replicas: number, logins: readonly MongoLogin[]): string {
  const members = Array.from({ length: replicas }, (_, i) => ({
    _id: i,
    host: `mongodb-${i}.mongodb:${MONGO_PORT}`,
    priority: i === 0 ? 2 : 1,
  }));
  const grants = logins.map((login) => ({
    role: `pix-${login.name}`,
    env: envPrefix(login.name),
    privileges: login.collections.map((collection) => ({
      resource: { db: login.database, collection },
      actions: MONGO_COLLECTION_ACTIONS,
    })),
  }));
  return [
    "const admin = db.getSiblingDB('admin');",
    'admin.auth(process.env.MONGO_ROOT_USERNAME, process.env.MONGO_ROOT_PASSWORD);',
    `try { rs.status(); } catch (e) { rs.initiate(${JSON.stringify({ _id: 'rs0', members })}); }`,
    'while (!db.hello().isWritablePrimary) sleep(1000);',
    `for (const grant of ${JSON.stringify(grants)}) {`,
    '  if (admin.getRole(grant.role)) admin.updateRole(grant.role, { privileges: grant.privileges, roles: [] });',
    '  else admin.createRole({ role: grant.role, privileges: grant.privileges, roles: [] });',
    "  const user = process.env[grant.env + '_USERNAME'];",
    "  const pwd = process.env[grant.env + '_PASSWORD'];",
    "  const roles = [{ role: grant.role, db: 'admin' }];",
    '  if (admin.getUser(user)) admin.updateUser(user, { pwd, roles });',
    '  else admin.createUser({ user, pwd, roles });',
    "  print('user ' + user + ': role ' + grant.role);",
    '}',
  ].join('\n');
}

/**
 * A MongoDB replica set (rs0): one primary and secondaries on their own volumes. Every connection
 * is TLS (requireTLS, a cert-manager certificate), every client logs in (--auth), and the members
 * prove themselves to each other with the shared keyFile.
 */
export function addMongo(
  chart: Chart,
  namespace: string,
  replicas: number,
  storage: string,
  issuer: IssuerRef | undefined,
  /** Every component's login: the services' and, when it runs, the PSP simulator's. */
  logins: readonly MongoLogin[],
): void {
  const labels = labelsOf('mongodb');
  headlessService(chart, 'mongodb', [{ name: 'mongodb', port: MONGO_PORT }]);
  const members = Array.from({ length: replicas }, (_, i) => `mongodb-${i}.mongodb`);
  // Without cert-manager the SRE makes this Secret by hand (docs/deploy.md).
  if (issuer) {
    serverCertificate(chart, issuer, {
      name: 'mongodb',
      secretName: MONGO_TLS_SECRET,
      // The init job and the members' own checks reach a member on localhost.
      dnsNames: [...members, ...members.map((host) => `${host}.${namespace}.svc.cluster.local`), 'localhost'],
      ipAddresses: ['127.0.0.1'],
    });
  }
  const tcp = { tcpSocket: { port: k8s.IntOrString.fromNumber(MONGO_PORT) } };
  const tlsArgs = ['--tls', '--tlsCAFile', '/etc/mongodb/tls/ca.crt'];
  new k8s.KubeStatefulSet(chart, 'mongodb', {
    metadata: { name: 'mongodb', labels },
    spec: {
      serviceName: 'mongodb',
      replicas,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          securityContext: backingPodSecurity(MONGO_UID),
          // mongod takes its key and certificate as one PEM file, and refuses a keyFile others may
          // read: both are written, mode 0400 and owned by mongod, into a memory-backed volume.
          initContainers: [
            {
              name: 'prepare-secrets',
              image: MONGO_IMAGE,
              command: [
                'sh',
                '-c',
                'cat /etc/mongodb/tls/tls.key /etc/mongodb/tls/tls.crt > /run/mongodb/server.pem && ' +
                  'cp /etc/mongodb/keyfile/keyfile /run/mongodb/keyfile && ' +
                  'chmod 0400 /run/mongodb/server.pem /run/mongodb/keyfile',
              ],
              resources: {
                requests: { cpu: quantity('10m'), memory: quantity('16Mi') },
                limits: { cpu: quantity('100m'), memory: quantity('64Mi') },
              },
              securityContext: backingContainerSecurity(MONGO_UID),
              volumeMounts: [
                { name: 'tls', mountPath: '/etc/mongodb/tls', readOnly: true },
                { name: 'keyfile', mountPath: '/etc/mongodb/keyfile', readOnly: true },
                { name: 'run', mountPath: '/run/mongodb' },
              ],
            },
          ],
          containers: [
            {
              name: 'mongodb',
              image: MONGO_IMAGE,
              args: [
                '--replSet',
                'rs0',
                '--bind_ip_all',
                '--dbpath',
                '/data/db',
                '--auth',
                '--keyFile',
                '/run/mongodb/keyfile',
                '--tlsMode',
                'requireTLS',
                '--tlsCertificateKeyFile',
                '/run/mongodb/server.pem',
                '--tlsCAFile',
                '/etc/mongodb/tls/ca.crt',
                // Clients prove who they are with their login, not with a certificate.
                '--tlsAllowConnectionsWithoutCertificates',
              ],
              // On an empty volume the image creates this root user before enabling --auth.
              env: [
                MONGOSH_HOME,
                secretEnv('MONGO_INITDB_ROOT_USERNAME', MONGO_ROOT_SECRET, 'username'),
                secretEnv('MONGO_INITDB_ROOT_PASSWORD', MONGO_ROOT_SECRET, 'password'),
              ],
              ports: [{ name: 'mongodb', containerPort: MONGO_PORT }],
              livenessProbe: { ...tcp, periodSeconds: 10, failureThreshold: 6 },
              readinessProbe: {
                exec: {
                  command: [
                    'mongosh',
                    '--quiet',
                    ...tlsArgs,
                    '--host',
                    'localhost',
                    '--eval',
                    "db.adminCommand('ping').ok",
                  ],
                },
                periodSeconds: 10,
                timeoutSeconds: 5,
              },
              resources: {
                requests: { cpu: quantity('500m'), memory: quantity('1Gi') },
                limits: { cpu: quantity('2'), memory: quantity('2Gi') },
              },
              securityContext: backingContainerSecurity(MONGO_UID),
              volumeMounts: [
                { name: 'data', mountPath: '/data/db' },
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'tls', mountPath: '/etc/mongodb/tls', readOnly: true },
                { name: 'run', mountPath: '/run/mongodb', readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: 'tmp', emptyDir: {} },
            { name: 'run', emptyDir: { medium: 'Memory' } },
            { name: 'tls', secret: { secretName: MONGO_TLS_SECRET, defaultMode: 0o440 } },
            { name: 'keyfile', secret: { secretName: MONGO_KEYFILE_SECRET, defaultMode: 0o440 } },
          ],
        },
      },
      volumeClaimTemplates: [storageClaim(storage)],
    },
  });
  new k8s.KubePodDisruptionBudget(chart, 'mongodb-pdb', {
    metadata: { name: 'mongodb', labels },
    spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: labels } },
  });
  const initLabels = labelsOf(MONGO_INIT_COMPONENT);
  new k8s.KubeJob(chart, 'mongodb-init', {
    metadata: { name: MONGO_INIT_COMPONENT, labels: initLabels },
    spec: {
      // Retries until the first member answers.
      backoffLimit: 20,
      template: {
        metadata: { labels: initLabels },
        spec: {
          restartPolicy: 'OnFailure',
          automountServiceAccountToken: false,
          securityContext: backingPodSecurity(MONGO_UID),
          containers: [
            {
              name: 'initiate',
              image: MONGO_IMAGE,
              command: [
                'mongosh',
                '--quiet',
                `mongodb://mongodb-0.mongodb:${MONGO_PORT}/admin?directConnection=true&tls=true&tlsCAFile=${MONGO_CA_DIR}/ca.crt`,
                '--eval',
              ],
              args: [initScript(replicas, logins)],
              env: [
                MONGOSH_HOME,
                secretEnv('MONGO_ROOT_USERNAME', MONGO_ROOT_SECRET, 'username'),
                secretEnv('MONGO_ROOT_PASSWORD', MONGO_ROOT_SECRET, 'password'),
                ...logins.flatMap((login) => [
                  secretEnv(`${envPrefix(login.name)}_USERNAME`, mongoUserSecret(login.name), 'username'),
                  secretEnv(`${envPrefix(login.name)}_PASSWORD`, mongoUserSecret(login.name), 'password'),
                ]),
              ],
              resources: {
                requests: { cpu: quantity('50m'), memory: quantity('128Mi') },
                limits: { cpu: quantity('500m'), memory: quantity('256Mi') },
              },
              securityContext: backingContainerSecurity(MONGO_UID),
              volumeMounts: [
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'mongodb-ca', mountPath: MONGO_CA_DIR, readOnly: true },
              ],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: {} }, mongoCaVolume()],
        },
      },
    },
  });
}

/** The CA of MongoDB's certificate, and nothing else of its Secret (the server's key stays there). */
export function mongoCaVolume(): k8s.Volume {
  return {
    name: 'mongodb-ca',
    secret: { secretName: MONGO_TLS_SECRET, items: [{ key: 'ca.crt', path: 'ca.crt' }] },
  };
}
