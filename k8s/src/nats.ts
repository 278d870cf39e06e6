import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { natsAuthorization, type NatsIdentity } from '@pix/contracts';
import { serverCertificate, type IssuerRef } from './certificates';
import { NATS_CLIENT_PORT, NATS_CLUSTER_PORT, NATS_MONITOR_PORT, labelsOf } from './services';
import { cpuRequestMillis, type Settings } from './settings';
import {
  backingPodSecurity,
  backingContainerSecurity,
  goMaxProcsFromLimit,
  headlessService,
  quantity,
  storageClaim,
} from './stateful';

export const NATS_IMAGE = 'nats:2.15-alpine';
const NATS_UID = 1000;
/** The Secret with NATS's certificate and key (cert-manager's, or made by hand) and the CA that signed it. */
export const NATS_TLS_SECRET = 'nats-tls';
const TLS_DIR = '/etc/nats-tls';
const CONFIG_FILE = '/etc/nats/nats.conf';
const PID_FILE = '/var/run/nats/nats.pid';
/**
 * The reloader beside each server: when the configuration (a key added or removed) or the
 * certificate (cert-manager renews it a month before it expires) changes on disk, it asks the
 * server to reload, which takes both without dropping a connection. Kubernetes updates mounted
 * ConfigMaps and Secrets in place within a minute or so; this looks every 30 s.
 */
const RELOADER_SCRIPT = [
  'last=""',
  'while true; do',
  `  now="$(cat ${CONFIG_FILE} ${TLS_DIR}/tls.crt ${TLS_DIR}/tls.key ${TLS_DIR}/ca.crt | sha256sum)"`,
  `  if [ -n "$last" ] && [ "$now" != "$last" ]; then nats-server --signal reload=${PID_FILE}; fi`,
  '  last="$now"',
  '  sleep 30',
  'done',
].join('\n');

/** The certificate, key and CA for one TLS block: clients' connections, or routes between the members. */
function tlsBlock(indent: string, verifyPeers: boolean): string[] {
  return [
    `${indent}tls {`,
    `${indent}  cert_file: "${TLS_DIR}/tls.crt"`,
    `${indent}  key_file: "${TLS_DIR}/tls.key"`,
    `${indent}  ca_file: "${TLS_DIR}/ca.crt"`,
    // A route proves it is a member with a certificate of the same CA.
    ...(verifyPeers ? [`${indent}  verify: true`] : []),
    `${indent}}`,
  ];
}

/**
 * The server configuration; also checked by `nats-server -t` in the tests. Clients and routes speak
 * TLS; every client is one of the platform's identities, each in an account of its own and
 * JetStream in the JETSTREAM account (the accounts that @pix/contracts derives from its
 * permissions table, with their public keys), and a client without a listed key is refused. The
 * routes are not subject to it: they are the members'.
 */
export function natsConfig(replicas: number, publicKeys: Record<NatsIdentity, readonly string[]>): string {
  const routes = Array.from({ length: replicas }, (_, i) => `    nats://nats-${i}.nats:${NATS_CLUSTER_PORT}`);
  return [
    'server_name: $POD_NAME',
    `pid_file: ${PID_FILE}`,
    `listen: 0.0.0.0:${NATS_CLIENT_PORT}`,
    `http: 0.0.0.0:${NATS_MONITOR_PORT}`,
    // Clients are moved to the other nodes before a node stops, so a rollout drops no request.
    'lame_duck_duration: 30s',
    'lame_duck_grace_period: 10s',
    ...tlsBlock('', false),
    'jetstream {',
    '  store_dir: /data',
    '}',
    'cluster {',
    '  name: pix',
    `  listen: 0.0.0.0:${NATS_CLUSTER_PORT}`,
    ...tlsBlock('  ', true),
    '  routes: [',
    ...routes,
    '  ]',
    '}',
    natsAuthorization(publicKeys),
  ].join('\n');
}

/**
 * Every name a client or a member reaches NATS by: the Service and each pod (nats-0.nats …). Each
 * pod's short name is listed as it is: the services connect to `nats-<n>.nats` (NATS_URL), and
 * Node's TLS, unlike Go's, refuses a wildcard over a single label (`*.nats`) as a match.
 */
export function natsDnsNames(namespace: string, replicas: number): string[] {
  const pods = Array.from({ length: replicas }, (_, i) => `nats-${i}.nats`);
  return [
    ...pods,
    ...['nats', `nats.${namespace}`, `nats.${namespace}.svc`, `nats.${namespace}.svc.cluster.local`].flatMap((name) => [
      name,
      `*.${name}`,
    ]),
  ];
}

/**
 * A JetStream cluster: streams are replicated by Raft across the nodes, each on its own volume.
 * Its certificate comes from cert-manager when the cluster has it.
 */
export function addNats(
  chart: Chart,
  settings: Settings & { nats: { inCluster: true } },
  issuer: IssuerRef | undefined,
): void {
  const { replicas, storage, publicKeys } = settings.nats;
  const labels = labelsOf('nats');
  if (issuer) {
    serverCertificate(chart, issuer, {
      name: 'nats',
      secretName: NATS_TLS_SECRET,
      dnsNames: natsDnsNames(settings.namespace, replicas),
    });
  }
  new k8s.KubeConfigMap(chart, 'nats-config', {
    metadata: { name: 'nats-config', labels },
    data: { 'nats.conf': natsConfig(replicas, publicKeys) },
  });
  headlessService(chart, 'nats', [
    { name: 'client', port: NATS_CLIENT_PORT },
    { name: 'cluster', port: NATS_CLUSTER_PORT },
    { name: 'monitor', port: NATS_MONITOR_PORT },
  ]);
  new k8s.KubeStatefulSet(chart, 'nats', {
    metadata: { name: 'nats', labels },
    spec: {
      serviceName: 'nats',
      replicas,
      // A cluster forms only when its nodes find each other: start them together.
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          securityContext: backingPodSecurity(NATS_UID),
          // The reloader signals the server's process, which it must see.
          shareProcessNamespace: true,
          // Lame duck mode takes lame_duck_duration; the pod gets a little more.
          terminationGracePeriodSeconds: 60,
          containers: [
            {
              name: 'nats',
              image: NATS_IMAGE,
              args: ['--config', CONFIG_FILE],
              env: [
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                goMaxProcsFromLimit('nats'),
              ],
              ports: [
                { name: 'client', containerPort: NATS_CLIENT_PORT },
                { name: 'cluster', containerPort: NATS_CLUSTER_PORT },
                { name: 'monitor', containerPort: NATS_MONITOR_PORT },
              ],
              lifecycle: { preStop: { exec: { command: ['nats-server', '--signal', `ldm=${PID_FILE}`] } } },
              livenessProbe: {
                httpGet: { path: '/healthz?js-enabled-only=true', port: k8s.IntOrString.fromNumber(NATS_MONITOR_PORT) },
                periodSeconds: 10,
                failureThreshold: 3,
              },
              readinessProbe: {
                httpGet: { path: '/healthz', port: k8s.IntOrString.fromNumber(NATS_MONITOR_PORT) },
                periodSeconds: 10,
              },
              resources: {
                requests: { cpu: quantity(`${cpuRequestMillis(settings, 250)}m`), memory: quantity('512Mi') },
                limits: { cpu: quantity('1'), memory: quantity('1Gi') },
              },
              securityContext: backingContainerSecurity(NATS_UID),
              volumeMounts: [
                { name: 'config', mountPath: '/etc/nats' },
                { name: 'tls', mountPath: TLS_DIR, readOnly: true },
                { name: 'data', mountPath: '/data' },
                { name: 'run', mountPath: '/var/run/nats' },
              ],
            },
            {
              name: 'reloader',
              image: NATS_IMAGE,
              command: ['sh', '-c', RELOADER_SCRIPT],
              resources: {
                requests: { cpu: quantity(`${cpuRequestMillis(settings, 10)}m`), memory: quantity('16Mi') },
                limits: { cpu: quantity('100m'), memory: quantity('32Mi') },
              },
              securityContext: backingContainerSecurity(NATS_UID),
              volumeMounts: [
                { name: 'config', mountPath: '/etc/nats', readOnly: true },
                { name: 'tls', mountPath: TLS_DIR, readOnly: true },
                { name: 'run', mountPath: '/var/run/nats' },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: 'nats-config' } },
            { name: 'tls', secret: { secretName: NATS_TLS_SECRET, defaultMode: 0o440 } },
            { name: 'run', emptyDir: {} },
          ],
        },
      },
      volumeClaimTemplates: [storageClaim(storage)],
    },
  });
  new k8s.KubePodDisruptionBudget(chart, 'nats-pdb', {
    metadata: { name: 'nats', labels },
    spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: labels } },
  });
}
