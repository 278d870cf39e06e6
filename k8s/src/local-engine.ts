import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { MONGO_PORT, labelsOf } from './services';
import { cpuRequestMillis, type Settings } from './settings';
import {
  backingContainerSecurity,
  backingPodSecurity,
  goMaxProcsFromLimit,
  headlessService,
  quantity,
  storageClaim,
} from './stateful';

/** The image `make images` builds (scripts/images.sh): PostgreSQL 15 with DocumentDB, FerretDB 2.7 on 27017. */
export const LOCAL_ENGINE_IMAGE = 'localhost/pix/engine:local';
/** The image's postgres user (Debian's package makes it). */
const POSTGRES_UID = 100;
/** FerretDB's readiness on its debug port, which listens on the pod's loopback only. */
const READY_CHECK = ['http-ok', '8088', '/debug/readyz'];

/**
 * In place of the MongoDB replica set on a small node (settings mongodb.engine `local`): the local
 * engine as the one member of a StatefulSet of the same name, on a volume of its own, so that the
 * services, their NetworkPolicies and the Service name are those of production. What differs is
 * the engine's: one member, no replica set, no logins and no TLS (as compose runs it).
 */
export function addLocalEngine(chart: Chart, settings: Settings, storage: string): void {
  const labels = labelsOf('mongodb');
  headlessService(chart, 'mongodb', [{ name: 'mongodb', port: MONGO_PORT }]);
  new k8s.KubeStatefulSet(chart, 'mongodb', {
    metadata: { name: 'mongodb', labels },
    spec: {
      serviceName: 'mongodb',
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          securityContext: backingPodSecurity(POSTGRES_UID),
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'engine',
              image: LOCAL_ENGINE_IMAGE,
              imagePullPolicy: 'IfNotPresent',
              // FerretDB is the Go process of the engine's two; PostgreSQL ignores it.
              env: [goMaxProcsFromLimit('engine')],
              ports: [{ name: 'mongodb', containerPort: MONGO_PORT }],
              readinessProbe: { exec: { command: READY_CHECK }, periodSeconds: 5 },
              livenessProbe: {
                tcpSocket: { port: k8s.IntOrString.fromNumber(MONGO_PORT) },
                initialDelaySeconds: 30,
                periodSeconds: 10,
                failureThreshold: 6,
              },
              resources: {
                requests: { cpu: quantity(`${cpuRequestMillis(settings, 250)}m`), memory: quantity('512Mi') },
                limits: { cpu: quantity('1'), memory: quantity('1Gi') },
              },
              securityContext: backingContainerSecurity(POSTGRES_UID),
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
}
