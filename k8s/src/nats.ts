import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { NATS_CLIENT_PORT, NATS_CLUSTER_PORT, NATS_MONITOR_PORT, labelsOf } from './services';
import { backingPodSecurity, backingContainerSecurity, headlessService, quantity, storageClaim } from './stateful';

export const NATS_IMAGE = 'nats:2.15-alpine';
const NATS_UID = 1000;

/** The server configuration; also checked by `nats-server -t` in the tests. */
export function natsConfig(replicas: number): string {
  const routes = Array.from({ length: replicas }, (_, i) => `    nats://nats-${i}.nats:${NATS_CLUSTER_PORT}`);
  return [
    'server_name: $POD_NAME',
    'pid_file: /var/run/nats/nats.pid',
    `listen: 0.0.0.0:${NATS_CLIENT_PORT}`,
    `http: 0.0.0.0:${NATS_MONITOR_PORT}`,
    // Clients are moved to the other nodes before a node stops, so a rollout drops no request.
    'lame_duck_duration: 30s',
    'lame_duck_grace_period: 10s',
    'jetstream {',
    '  store_dir: /data',
    '}',
    'cluster {',
    '  name: pix',
    `  listen: 0.0.0.0:${NATS_CLUSTER_PORT}`,
    '  routes: [',
    ...routes,
    '  ]',
    '}',
    '',
  ].join('\n');
}

/** A JetStream cluster: streams are replicated by Raft across the nodes, each on its own volume. */
export function addNats(chart: Chart, replicas: number, storage: string): void {
  const labels = labelsOf('nats');
  new k8s.KubeConfigMap(chart, 'nats-config', {
    metadata: { name: 'nats-config', labels },
    data: { 'nats.conf': natsConfig(replicas) },
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
          // Lame duck mode takes lame_duck_duration; the pod gets a little more.
          terminationGracePeriodSeconds: 60,
          containers: [
            {
              name: 'nats',
              image: NATS_IMAGE,
              args: ['--config', '/etc/nats/nats.conf'],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
              ports: [
                { name: 'client', containerPort: NATS_CLIENT_PORT },
                { name: 'cluster', containerPort: NATS_CLUSTER_PORT },
                { name: 'monitor', containerPort: NATS_MONITOR_PORT },
              ],
              lifecycle: { preStop: { exec: { command: ['nats-server', '--signal', 'ldm=/var/run/nats/nats.pid'] } } },
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
                requests: { cpu: quantity('250m'), memory: quantity('512Mi') },
                limits: { cpu: quantity('1'), memory: quantity('1Gi') },
              },
              securityContext: backingContainerSecurity(NATS_UID),
              volumeMounts: [
                { name: 'config', mountPath: '/etc/nats' },
                { name: 'data', mountPath: '/data' },
                { name: 'run', mountPath: '/var/run/nats' },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: 'nats-config' } },
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
