import { createHash } from 'node:crypto';
import { Duration, Size, type Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-33';
import { AuthBucket, Consumers, Streams, type NatsIdentity } from '@pix/contracts';
import { MONGO_CA_DIR, MONGO_DATABASE, MONGO_TLS_SECRET, mongoUserSecret } from './mongodb';
import { NATS_TLS_SECRET } from './nats';
import { adapterConnectionFiles, type ConnectionFiles } from './psp-connection';
import {
  MONGO_PORT,
  NATS_CLIENT_PORT,
  NATS_PROVISION_COMPONENT,
  SERVICES,
  labelsOf,
  type ServiceSpec,
} from './services';
import { cpuRequestMillis, type InClusterMongo, type Settings } from './settings';

/** Kubernetes gives a pod this long after SIGTERM; SHUTDOWN_GRACE stays below it so the service exits first. */
export const TERMINATION_GRACE_SECONDS = 30;
export const SHUTDOWN_GRACE = '20s';
/** The gateway keeps serving this long after it is told to stop, while endpoints drop it everywhere. */
const GATEWAY_PRESTOP_SECONDS = 5;
/** The images' non-root user, `node` of the Node.js base image (see the Dockerfile). */
export const APP_UID = 1000;
/** Where a pod finds its NATS identity's nkey seed, and the CA that NATS's certificate is verified with. */
const NATS_SEED_DIR = '/etc/nats-identity';
const NATS_CA_DIR = '/etc/nats-ca';
/** A managed NATS that speaks TLS: the CA its certificate is verified with (key ca.crt), made by the SRE. */
const MANAGED_NATS_CA_SECRET = 'pix-nats-ca';

/** The Secret holding an identity's nkey seed (key `seed`), which the SRE creates (docs/deploy.md); never in the manifests. */
export function natsSeedSecret(identity: NatsIdentity): string {
  return `pix-nats-${identity}`;
}

/** In the cluster NATS speaks TLS to its clients; a managed one when its URL says tls://. */
export function natsUrl(settings: Settings): string {
  if (!settings.nats.inCluster) return settings.nats.url;
  return Array.from({ length: settings.nats.replicas }, (_, i) => `tls://nats-${i}.nats:${NATS_CLIENT_PORT}`).join(',');
}

/** The Secret whose ca.crt verifies NATS's certificate; none for a managed NATS without TLS. */
function natsCaSecret(settings: Settings): string | undefined {
  if (settings.nats.inCluster) return NATS_TLS_SECRET;
  return settings.nats.url.startsWith('tls://') ? MANAGED_NATS_CA_SECRET : undefined;
}

/**
 * What makes a pod one NATS identity: its seed, from its own Secret, and the CA to verify NATS with
 * (only ca.crt of the server's Secret: never its key). Read-only files of the pod's group.
 */
function natsIdentityFiles(chart: Chart, settings: Settings, identity: NatsIdentity, id: string) {
  const seed = kplus.Volume.fromSecret(
    chart,
    `${id}-nats-seed`,
    kplus.Secret.fromSecretName(chart, `${id}-nats-seed-secret`, natsSeedSecret(identity)),
    { name: 'nats-identity', defaultMode: 0o440, items: { seed: { path: 'seed' } } },
  );
  const volumes = [seed];
  const mounts: kplus.VolumeMount[] = [{ path: NATS_SEED_DIR, volume: seed, readOnly: true }];
  const caSecret = natsCaSecret(settings);
  if (caSecret) {
    const ca = kplus.Volume.fromSecret(
      chart,
      `${id}-nats-ca`,
      kplus.Secret.fromSecretName(chart, `${id}-nats-ca-secret`, caSecret),
      { name: 'nats-ca', defaultMode: 0o444, items: { 'ca.crt': { path: 'ca.crt' } } },
    );
    volumes.push(ca);
    mounts.push({ path: NATS_CA_DIR, volume: ca, readOnly: true });
  }
  return { volumes, mounts };
}

/** Every container of the platform's images: non-root, read-only, no privilege. */
export const APP_CONTAINER_SECURITY: kplus.ContainerSecurityContextProps = {
  ensureNonRoot: true,
  user: APP_UID,
  group: APP_UID,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  capabilities: { drop: [kplus.Capability.ALL] },
  seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
};

/**
 * The probes of every process of the platform's images, on its ops port: alive while /healthz
 * answers (three misses 10 s apart restart it); ready while /readyz does, which turns 503 as soon
 * as SIGTERM arrives and so takes the pod out of its Service at once.
 */
export function opsProbes(port: number): Pick<kplus.ContainerProps, 'liveness' | 'readiness'> {
  return {
    liveness: kplus.Probe.fromHttpGet('/healthz', { port, periodSeconds: Duration.seconds(10), failureThreshold: 3 }),
    readiness: kplus.Probe.fromHttpGet('/readyz', { port, periodSeconds: Duration.seconds(5), failureThreshold: 1 }),
  };
}

/**
 * The in-cluster replica set over TLS; no login in it (MONGO_USERNAME/MONGO_PASSWORD come from
 * Secrets). The local engine: its one member, without replica set, TLS or login.
 */
export function mongoUrl(mongodb: InClusterMongo, database: string = MONGO_DATABASE): string {
  if (mongodb.engine === 'local') return `mongodb://mongodb-0.mongodb:${MONGO_PORT}/${database}`;
  const hosts = Array.from({ length: mongodb.replicas }, (_, i) => `mongodb-${i}.mongodb:${MONGO_PORT}`).join(',');
  return `mongodb://${hosts}/${database}?replicaSet=rs0&tls=true&tlsCAFile=${MONGO_CA_DIR}/ca.crt`;
}

/** Every MongoDB but the local engine (which has none) gives each service a login of its own. */
export function usesMongoLogins(settings: Settings): boolean {
  return !(settings.mongodb.inCluster && settings.mongodb.engine === 'local');
}

/** Settings shared by every service; each reads only the variables its schema knows. */
function platformConfig(chart: Chart, settings: Settings): kplus.ConfigMap {
  return new kplus.ConfigMap(chart, 'config', {
    metadata: { name: 'pix-config', labels: labelsOf('pix') },
    data: {
      NATS_URL: natsUrl(settings),
      JETSTREAM_REPLICAS: String(
        settings.nats.inCluster ? Math.min(3, settings.nats.replicas) : settings.nats.streamReplicas,
      ),
      ...(settings.mongodb.inCluster ? { MONGO_URL: mongoUrl(settings.mongodb) } : {}),
      NATS_NKEY_SEED_FILE: `${NATS_SEED_DIR}/seed`,
      ...(natsCaSecret(settings) ? { NATS_CA_FILE: `${NATS_CA_DIR}/ca.crt` } : {}),
      LOG_LEVEL: settings.logLevel,
      SHUTDOWN_GRACE,
      OPS_HOST: '0.0.0.0',
      HTTP_HOST: '0.0.0.0',
      PUBLIC_BASE_URL: `https://${settings.publicHost}`,
      // Merchant URLs on private networks would let a store probe the cluster; a test cluster's
      // receivers are pods (its NetworkPolicy still opens the dispatcher to those alone).
      WEBHOOK_ALLOW_PRIVATE_TARGETS: String(settings.webhookReceivers.length > 0),
    },
  });
}

/** Per service: Deployment, Service, PodDisruptionBudget and HorizontalPodAutoscaler; and the JetStream provisioning Job. */
export function addServices(chart: Chart, settings: Settings): Map<string, kplus.Service> {
  const config = platformConfig(chart, settings);
  const mongoSecret = kplus.Secret.fromSecretName(chart, 'mongodb-secret', 'pix-mongodb');
  const dashboardSecret = kplus.Secret.fromSecretName(chart, 'dashboard-secret', 'pix-dashboard');
  const secretsKeys = kplus.Secret.fromSecretName(chart, 'secrets-keys', 'pix-secrets-keys');
  // Each producer of money-moving facts has its key (docs/security.md: signed facts): `signing-key`
  // reaches the producer only, `public-keys` (what verifiers accept, the new key first while a
  // rotation lasts) the services that apply its facts.
  const adapterFactKey = kplus.Secret.fromSecretName(chart, 'adapter-fact-key', 'pix-adapter-fact-key');
  const paymentsFactKey = kplus.Secret.fromSecretName(chart, 'payments-fact-key', 'pix-payments-fact-key');
  const exposed = new Map<string, kplus.Service>();

  for (const spec of SERVICES) {
    const env: Record<string, kplus.EnvValue> = { OPS_PORT: kplus.EnvValue.fromValue(String(spec.opsPort)) };
    if (spec.httpPort) env[spec.httpPort.env] = kplus.EnvValue.fromValue(String(spec.httpPort.port));
    if (spec.usesMongo && !settings.mongodb.inCluster) {
      env.MONGO_URL = kplus.EnvValue.fromSecretValue({ secret: mongoSecret, key: 'url' });
    }
    if (spec.usesMongo && usesMongoLogins(settings)) {
      // Each service logs in as its own user, whose role reaches only its own collections.
      const login = kplus.Secret.fromSecretName(chart, `${spec.name}-mongodb-login`, mongoUserSecret(spec.name));
      env.MONGO_USERNAME = kplus.EnvValue.fromSecretValue({ secret: login, key: 'username' });
      env.MONGO_PASSWORD = kplus.EnvValue.fromSecretValue({ secret: login, key: 'password' });
    }
    if (spec.name === 'gateway') {
      // Signs the dashboard's session cookies: the same on every replica, required behind https.
      env.DASHBOARD_SESSION_SECRET = kplus.EnvValue.fromSecretValue({ secret: dashboardSecret, key: 'session-secret' });
      // Seal the stores' webhook secrets at rest; the first key seals (docs/security.md: rotation).
      env.SECRETS_KEYS = kplus.EnvValue.fromSecretValue({ secret: secretsKeys, key: 'keys' });
      // The ingress (and what is before it) add their hops to X-Forwarded-For: the client address
      // the door counts by is the one the outermost saw, not the controller's for every client.
      env.TRUST_PROXY = kplus.EnvValue.fromValue(String(settings.ingress.proxyHops));
    }
    let pspFiles: Omit<ConnectionFiles, 'env'> = { volumes: [], mounts: [], ports: [] };
    if (spec.name === 'pix-provider-adapter') {
      const files = adapterConnectionFiles(chart, settings);
      Object.assign(env, files.env);
      pspFiles = files;
      env.FACT_SIGNING_KEY = kplus.EnvValue.fromSecretValue({ secret: adapterFactKey, key: 'signing-key' });
    }
    if (spec.name === 'payments') {
      env.FACT_SIGNING_KEY = kplus.EnvValue.fromSecretValue({ secret: paymentsFactKey, key: 'signing-key' });
      env.PIX_FACTS_PUBLIC_KEYS = kplus.EnvValue.fromSecretValue({ secret: adapterFactKey, key: 'public-keys' });
    }
    if (spec.name === 'webhook-dispatcher' || spec.name === 'gateway') {
      env.PAYMENT_FACTS_PUBLIC_KEYS = kplus.EnvValue.fromSecretValue({ secret: paymentsFactKey, key: 'public-keys' });
    }
    const deployment = serviceDeployment(chart, settings, spec, config, env, pspFiles);
    const ports = [{ name: 'ops', port: spec.opsPort, targetPort: spec.opsPort }];
    if (spec.httpPort)
      ports.push({ name: spec.httpPort.name, port: spec.httpPort.port, targetPort: spec.httpPort.port });
    const service = new kplus.Service(chart, `${spec.name}-service`, {
      metadata: { name: spec.name, labels: labelsOf(spec.name) },
      selector: deployment,
      ports,
    });
    exposed.set(spec.name, service);

    new kplus.k8s.KubePodDisruptionBudget(chart, `${spec.name}-pdb`, {
      metadata: { name: spec.name, labels: labelsOf(spec.name) },
      spec: { maxUnavailable: kplus.k8s.IntOrString.fromNumber(1), selector: { matchLabels: labelsOf(spec.name) } },
    });
    new kplus.HorizontalPodAutoscaler(chart, `${spec.name}-hpa`, {
      metadata: { name: spec.name, labels: labelsOf(spec.name) },
      target: deployment,
      minReplicas: spec.minReplicas,
      maxReplicas: spec.maxReplicas,
      metrics: [kplus.Metric.resourceCpu(kplus.MetricTarget.averageUtilization(70))],
    });
  }
  natsProvisioning(chart, settings, config);
  return exposed;
}

/**
 * The provisioning step: the admin image's `nats provision`, as the provisioner identity, creates
 * or updates the streams, durable consumers and the AUTH bucket; the services only bind to them
 * (and wait for them at start). Its name carries a digest of what it provisions and with which
 * image, so a release that changes either runs it again (a Job's pod cannot be changed in place).
 */
function natsProvisioning(chart: Chart, settings: Settings, config: kplus.ConfigMap): void {
  const image = `${settings.image.repository}/admin:${settings.image.tag}`;
  const digest = createHash('sha256')
    .update(JSON.stringify({ image, Streams, Consumers, AuthBucket, replicas: config.data.JETSTREAM_REPLICAS }))
    .digest('hex')
    .slice(0, 10);
  const files = natsIdentityFiles(chart, settings, 'provisioner', NATS_PROVISION_COMPONENT);
  const tmp = kplus.Volume.fromEmptyDir(chart, `${NATS_PROVISION_COMPONENT}-tmp`, 'tmp');
  new kplus.Job(chart, NATS_PROVISION_COMPONENT, {
    metadata: { name: `${NATS_PROVISION_COMPONENT}-${digest}`, labels: labelsOf(NATS_PROVISION_COMPONENT) },
    podMetadata: { labels: labelsOf(NATS_PROVISION_COMPONENT) },
    // Retries while NATS is not up yet; each try is patient for two minutes itself.
    backoffLimit: 10,
    ttlAfterFinished: Duration.days(1),
    automountServiceAccountToken: false,
    securityContext: { ensureNonRoot: true, user: APP_UID, group: APP_UID, fsGroup: APP_UID },
    volumes: [...files.volumes, tmp],
    containers: [
      {
        name: 'provision',
        image,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        command: ['node', 'main.js', 'nats', 'provision'],
        envFrom: [kplus.Env.fromConfigMap(config)],
        volumeMounts: [...files.mounts, { path: '/tmp', volume: tmp }],
        resources: {
          cpu: { request: kplus.Cpu.millis(cpuRequestMillis(settings, 50)), limit: kplus.Cpu.millis(500) },
          memory: { request: Size.mebibytes(96), limit: Size.mebibytes(192) },
        },
        securityContext: APP_CONTAINER_SECURITY,
      },
    ],
  });
}

function serviceDeployment(
  chart: Chart,
  settings: Settings,
  spec: ServiceSpec,
  config: kplus.ConfigMap,
  env: Record<string, kplus.EnvValue>,
  secretFiles: Omit<ConnectionFiles, 'env'>,
): kplus.Deployment {
  const tmp = kplus.Volume.fromEmptyDir(chart, `${spec.name}-tmp`, 'tmp');
  // The CA that signed the in-cluster MongoDB's certificate: ca.crt alone, never the server's key.
  const mongoCa =
    spec.usesMongo && settings.mongodb.inCluster && settings.mongodb.engine === 'mongodb'
      ? kplus.Volume.fromSecret(
          chart,
          `${spec.name}-mongodb-ca`,
          kplus.Secret.fromSecretName(chart, `${spec.name}-mongodb-tls`, MONGO_TLS_SECRET),
          { name: 'mongodb-ca', items: { 'ca.crt': { path: 'ca.crt' } } },
        )
      : undefined;
  const nats = natsIdentityFiles(chart, settings, spec.name, spec.name);
  const ports: kplus.ContainerPort[] = [{ name: 'ops', number: spec.opsPort }];
  if (spec.httpPort) ports.push({ name: spec.httpPort.name, number: spec.httpPort.port });
  ports.push(...secretFiles.ports);
  return new kplus.Deployment(chart, spec.name, {
    metadata: { name: spec.name, labels: labelsOf(spec.name) },
    podMetadata: {
      labels: labelsOf(spec.name),
      // For a Prometheus that discovers pods by annotation (without the Prometheus Operator).
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(spec.opsPort) },
    },
    // No fixed replicas: the HorizontalPodAutoscaler owns the count (from minReplicas up).
    // A rollout never lowers capacity: the new pod is ready before an old one drains.
    strategy: kplus.DeploymentStrategy.rollingUpdate({
      maxSurge: kplus.PercentOrAbsolute.absolute(1),
      maxUnavailable: kplus.PercentOrAbsolute.absolute(0),
    }),
    terminationGracePeriod: Duration.seconds(TERMINATION_GRACE_SECONDS),
    automountServiceAccountToken: false,
    securityContext: { ensureNonRoot: true, user: APP_UID, group: APP_UID, fsGroup: APP_UID },
    volumes: [tmp, ...(mongoCa ? [mongoCa] : []), ...nats.volumes, ...secretFiles.volumes],
    containers: [
      {
        name: spec.name,
        image: `${settings.image.repository}/${spec.name}:${settings.image.tag}`,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        ports,
        envFrom: [kplus.Env.fromConfigMap(config)],
        envVariables: env,
        volumeMounts: [
          { path: '/tmp', volume: tmp },
          ...(mongoCa ? [{ path: MONGO_CA_DIR, volume: mongoCa, readOnly: true }] : []),
          ...nats.mounts,
          ...secretFiles.mounts,
        ],
        resources: {
          cpu: {
            request: kplus.Cpu.millis(cpuRequestMillis(settings, spec.cpu.request)),
            limit: kplus.Cpu.millis(spec.cpu.limit),
          },
          memory: { request: Size.mebibytes(spec.memoryMiB.request), limit: Size.mebibytes(spec.memoryMiB.limit) },
        },
        ...opsProbes(spec.opsPort),
        lifecycle:
          spec.name === 'gateway'
            ? { preStop: kplus.Handler.fromCommand(['sleep', String(GATEWAY_PRESTOP_SECONDS)]) }
            : undefined,
        securityContext: APP_CONTAINER_SECURITY,
      },
    ],
  });
}
