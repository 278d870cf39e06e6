import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { MONGO_PORT, labelsOf } from './services';
import { backingContainerSecurity, backingPodSecurity, headlessService, quantity, storageClaim } from './stateful';

export const MONGO_IMAGE = 'mongo:7.0';
/** The mongo image's own mongodb user. */
const MONGO_UID = 999;
export const MONGO_INIT_COMPONENT = 'mongodb-init';
/** mongosh keeps its history and logs under HOME; the root filesystem is read-only, /tmp is not. */
const MONGOSH_HOME = { name: 'HOME', value: '/tmp' };

/** Initiates the replica set once; on a later run rs.status() answers and nothing changes. */
function initiateScript(replicas: number): string {
  const members = Array.from({ length: replicas }, (_, i) => ({ _id: i, host: `mongodb-${i}.mongodb:${MONGO_PORT}` }));
  return `try { rs.status(); print('replica set already initiated'); } catch (e) { rs.initiate(${JSON.stringify({ _id: 'rs0', members })}); }`;
}

/** A MongoDB replica set (rs0): one primary and secondaries on their own volumes. */
export function addMongo(chart: Chart, replicas: number, storage: string): void {
  const labels = labelsOf('mongodb');
  headlessService(chart, 'mongodb', [{ name: 'mongodb', port: MONGO_PORT }]);
  const tcp = { tcpSocket: { port: k8s.IntOrString.fromNumber(MONGO_PORT) } };
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
          containers: [
            {
              name: 'mongodb',
              image: MONGO_IMAGE,
              args: ['--replSet', 'rs0', '--bind_ip_all', '--dbpath', '/data/db'],
              env: [MONGOSH_HOME],
              ports: [{ name: 'mongodb', containerPort: MONGO_PORT }],
              livenessProbe: { ...tcp, periodSeconds: 10, failureThreshold: 6 },
              readinessProbe: {
                exec: { command: ['mongosh', '--quiet', '--eval', "db.adminCommand('ping').ok"] },
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
              ],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: {} }],
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
              command: ['mongosh', '--quiet', `mongodb://mongodb-0.mongodb:${MONGO_PORT}/admin`, '--eval'],
              args: [initiateScript(replicas)],
              env: [MONGOSH_HOME],
              resources: {
                requests: { cpu: quantity('50m'), memory: quantity('128Mi') },
                limits: { cpu: quantity('500m'), memory: quantity('256Mi') },
              },
              securityContext: backingContainerSecurity(MONGO_UID),
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  });
}
