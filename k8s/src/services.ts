import type { ServiceIdentity } from '@pix/contracts';

/** The platform's four services as the manifests see them: ports, scaling and what they reach. */
export interface ServiceSpec {
  /** Also its identity on NATS. */
  name: ServiceIdentity;
  opsPort: number;
  /** The public or callback HTTP port, when the service has one. */
  httpPort?: { name: string; port: number; env: string };
  usesMongo: boolean;
  /**
   * The collections of the platform's database its MongoDB user may reach, and no other: the
   * collection names of its models (tests/deploy/k8s-manifests.test.ts reads them from its src).
   */
  collections: string[];
  minReplicas: number;
  maxReplicas: number;
  cpu: { request: number; limit: number };
  /**
   * Above the images' heap flags (the Dockerfile's CMD: a 192 MB old space) plus what is not heap,
   * about 80 MB (docs/operations.md: memory), so V8's own limit is met before the pod's.
   */
  memoryMiB: { request: number; limit: number };
}

export const SERVICES: ServiceSpec[] = [
  {
    name: 'gateway',
    opsPort: 9101,
    httpPort: { name: 'http', port: 8080, env: 'GATEWAY_PORT' },
    usesMongo: true,
    collections: ['stores', 'tokens', 'idempotency_keys'],
    minReplicas: 2,
    maxReplicas: 10,
    cpu: { request: 200, limit: 1000 },
    memoryMiB: { request: 192, limit: 384 },
  },
  {
    name: 'payments',
    opsPort: 9102,
    usesMongo: true,
    collections: ['payments', 'balance_transactions', 'outbox_writers', 'refused_pix_facts', 'statement_checks'],
    minReplicas: 2,
    maxReplicas: 10,
    cpu: { request: 200, limit: 1000 },
    memoryMiB: { request: 192, limit: 384 },
  },
  {
    name: 'pix-provider-adapter',
    opsPort: 9103,
    httpPort: { name: 'callbacks', port: 8081, env: 'HTTP_PORT' },
    usesMongo: true,
    collections: ['psp_reconciliations'],
    minReplicas: 2,
    maxReplicas: 6,
    cpu: { request: 100, limit: 500 },
    memoryMiB: { request: 160, limit: 320 },
  },
  {
    name: 'webhook-dispatcher',
    opsPort: 9104,
    usesMongo: true,
    collections: ['webhook_deliveries', 'refused_payment_facts'],
    minReplicas: 2,
    maxReplicas: 10,
    cpu: { request: 100, limit: 500 },
    memoryMiB: { request: 160, limit: 320 },
  },
];

/** The Job that creates JetStream's streams, consumers and bucket (the admin image, as the provisioner identity). */
export const NATS_PROVISION_COMPONENT = 'nats-provision';
/** A pod of the admin image that the operator runs for a command (docs/deploy.md), as the admin identity. */
export const OPERATOR_COMPONENT = 'admin';

/**
 * The PSP simulator (k8s/src/psp-simulator.ts), test mode's PSP: its component and Service name,
 * API Pix over mutual TLS, its back office in plain HTTP, its ops port.
 */
export const PSP_SIMULATOR = { name: 'psp-simulator', apiPort: 8443, backOfficePort: 8082, opsPort: 9105 } as const;

export const NATS_CLIENT_PORT = 4222;
export const NATS_CLUSTER_PORT = 6222;
export const NATS_MONITOR_PORT = 8222;
export const MONGO_PORT = 27017;

/** Labels every object of one component carries; selectors and NetworkPolicies match on them. */
export function labelsOf(component: string): Record<string, string> {
  return { 'app.kubernetes.io/name': component, 'app.kubernetes.io/part-of': 'pix' };
}
