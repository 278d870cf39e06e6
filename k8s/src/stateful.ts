import type { Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-33';
import { labelsOf } from './services';

/** What the NATS and MongoDB StatefulSets share. */
export function quantity(value: string): k8s.Quantity {
  return k8s.Quantity.fromString(value);
}

export function backingPodSecurity(uid: number): k8s.PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    fsGroup: uid,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function backingContainerSecurity(uid: number): k8s.SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: uid,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { drop: ['ALL'] },
  };
}

/**
 * GOMAXPROCS for a Go server (NATS, FerretDB), from its container's CPU limit in whole cores. Go
 * reads a cgroup's limit itself since 1.25 but never below 2, and not on every cgroup v1 layout;
 * with more threads than its limit, a Go server hands goroutines from thread to thread and wakes
 * more for the same work (docs/development.md, "A wakeup's price").
 */
export function goMaxProcsFromLimit(container: string): k8s.EnvVar {
  return { name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { containerName: container, resource: 'limits.cpu' } } };
}

/** Stable DNS names per pod (name-0.name ...), published before readiness so peers can meet. */
export function headlessService(chart: Chart, name: string, ports: { name: string; port: number }[]): void {
  new k8s.KubeService(chart, `${name}-headless`, {
    metadata: { name, labels: labelsOf(name) },
    spec: {
      clusterIp: 'None',
      publishNotReadyAddresses: true,
      selector: labelsOf(name),
      ports: ports.map((p) => ({ ...p, targetPort: k8s.IntOrString.fromNumber(p.port) })),
    },
  });
}

export function storageClaim(storage: string): k8s.KubePersistentVolumeClaimProps {
  return {
    metadata: { name: 'data' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: quantity(storage) } } },
  };
}
