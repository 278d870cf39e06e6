import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';

/**
 * The committed manifests in k8s/dist/: fresh, valid against the Kubernetes OpenAPI schema (and the
 * Prometheus Operator CRDs), and holding the invariants an SRE relies on. Needs `npx tsc -b` first
 * (make test does it): the synth and the validator run from k8s/build/.
 */
const root = path.join(__dirname, '..', '..');

/** The src folders of the workspace libraries (libs/*) a service's package.json depends on. */
function workspaceLibSources(service: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'services', service, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  return Object.keys(manifest.dependencies ?? {})
    .filter((dependency) => dependency.startsWith('@pix/'))
    .map((dependency) => path.join(root, 'libs', dependency.slice('@pix/'.length), 'src'))
    .filter((dir) => fs.existsSync(dir));
}
const k8sDir = path.join(root, 'k8s');
const dist = path.join(k8sDir, 'dist');
const synth = path.join(k8sDir, 'build', 'main.js');
const validator = path.join(k8sDir, 'build', 'validate.js');
const natsServer = path.join(root, '.tools', 'bin', 'nats-server');

type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
  stringData?: Record<string, string>;
};

function readObjects(dir: string): K8sObject[] {
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .flatMap((name) => YAML.parseAllDocuments(fs.readFileSync(path.join(dir, name), 'utf8')))
    .map((doc) => doc.toJS() as K8sObject);
}

function synthInto(settings: object | null): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-k8s-'));
  const args = [synth];
  if (settings) {
    const file = path.join(out, 'settings.json');
    fs.writeFileSync(file, JSON.stringify(settings));
    args.push(file, path.join(out, 'dist'));
  } else {
    args.push(path.join(k8sDir, 'platform.json'), path.join(out, 'dist'));
  }
  execFileSync('node', args, { stdio: 'pipe' });
  return path.join(out, 'dist');
}

function validate(target: string): { status: number | null; output: string } {
  const run = spawnSync('node', [validator, target], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: K8sObject[], kind: string, name: string) =>
  byKind(objects, kind).find((o) => o.metadata.name === name)!;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const podOf = (o: K8sObject): Record<string, any> => o.spec!.template.spec;
const platform = JSON.parse(fs.readFileSync(path.join(k8sDir, 'platform.json'), 'utf8')) as {
  nats: { publicKeys: Record<string, string[]> };
  ingress: { proxyHops: number };
  psp: { live: PspConnection };
};
type PspConnection = {
  apiUrl: string;
  oauthUrl?: string;
  receiverKey: string;
  callbackHost: string;
  apiCidrs: string[];
  callbackCidrs: string[];
  callbackPins: string[];
  calls?: { timeout?: string; retryLimit?: number; maxConnections?: number };
};

/**
 * The live PSP connection's Secrets, by the names and keys docs/go-live.md gives the SRE: each
 * variable of the adapter's live connection (LIVE_PSP_*) that reads one, or the file it names.
 */
const LIVE_SECRETS = {
  'pix-psp-client': { 'client-id': 'LIVE_PSP_CLIENT_ID', 'client-secret': 'LIVE_PSP_CLIENT_SECRET' },
  'pix-psp-api-tls': {
    'tls.crt': 'LIVE_PSP_TLS_CERT_FILE',
    'tls.key': 'LIVE_PSP_TLS_KEY_FILE',
    'ca.crt': 'LIVE_PSP_TLS_CA_FILE',
  },
  'pix-psp-callback-tls': { 'tls.crt': 'LIVE_PSP_CALLBACK_TLS_CERT_FILE', 'tls.key': 'LIVE_PSP_CALLBACK_TLS_KEY_FILE' },
  'pix-psp-callback-client-ca': { 'ca.crt': 'LIVE_PSP_CALLBACK_CLIENT_CA_FILE' },
} as const;
/**
 * Test mode's connection at a PSP's homologation environment (psp.test, the simulator off): its
 * Secrets by the names and keys docs/deploy.md gives, read by the test connection's variables.
 */
const TEST_SECRETS = {
  'pix-psp-test-client': { 'client-id': 'PIX_CLIENT_ID', 'client-secret': 'PIX_CLIENT_SECRET' },
  'pix-psp-test-api-tls': {
    'tls.crt': 'PIX_TLS_CERT_FILE',
    'tls.key': 'PIX_TLS_KEY_FILE',
    'ca.crt': 'PIX_TLS_CA_FILE',
  },
  'pix-psp-test-callback-tls': { 'tls.crt': 'CALLBACK_TLS_CERT_FILE', 'tls.key': 'CALLBACK_TLS_KEY_FILE' },
  'pix-psp-test-callback-client-ca': { 'ca.crt': 'CALLBACK_CLIENT_CA_FILE' },
} as const;
const ADAPTER = 'pix-provider-adapter';
/** Test mode's callback server (HTTP_PORT) and live mode's (LIVE_PSP_CALLBACK_PORT). */
const CALLBACK_PORT = 8081;
const LIVE_CALLBACK_PORT = 8082;
const SIMULATOR = 'psp-simulator';
/**
 * The PSP simulator's Secrets, by the names and keys docs/deploy.md gives: the adapter's side of
 * its connection (the live connection's keys, and variables) and the simulator's own.
 */
const SIMULATOR_CONNECTION_SECRETS = {
  'pix-psp-simulator-client': { 'client-id': 'PIX_CLIENT_ID', 'client-secret': 'PIX_CLIENT_SECRET' },
  'pix-psp-simulator-api-tls': {
    'tls.crt': 'PIX_TLS_CERT_FILE',
    'tls.key': 'PIX_TLS_KEY_FILE',
    'ca.crt': 'PIX_TLS_CA_FILE',
  },
  'pix-psp-simulator-callback-tls': { 'tls.crt': 'CALLBACK_TLS_CERT_FILE', 'tls.key': 'CALLBACK_TLS_KEY_FILE' },
  'pix-psp-simulator-callback-client-ca': { 'ca.crt': 'CALLBACK_CLIENT_CA_FILE' },
} as const;
const SIMULATOR_OWN_SECRETS = {
  'pix-psp-simulator-client': { 'client-id': 'OAUTH_CLIENT_ID', 'client-secret': 'OAUTH_CLIENT_SECRET' },
  'pix-psp-simulator-server-tls': {
    'tls.crt': 'TLS_CERT_FILE',
    'tls.key': 'TLS_KEY_FILE',
    'ca.crt': 'TLS_CLIENT_CA_FILE',
  },
  'pix-psp-simulator-caller-tls': {
    'tls.crt': 'CALLBACK_TLS_CERT_FILE',
    'tls.key': 'CALLBACK_TLS_KEY_FILE',
    'ca.crt': 'CALLBACK_CA_FILE',
  },
  'pix-mongodb-psp-simulator': { username: 'MONGO_USERNAME', password: 'MONGO_PASSWORD' },
} as const;

/**
 * A Deployment's Secrets as `doc` names them (`name`: `key`, …), each key reaching the variable
 * given: by a secretKeyRef, or as a file mounted read-only where the variable points.
 */
function expectSecretsAsDocumented(
  deployment: K8sObject,
  secrets: Record<string, Record<string, string>>,
  doc: string,
): void {
  const env = Object.fromEntries(containerEnv(deployment).map((v) => [v.name, v]));
  const pod = podOf(deployment);
  for (const [secret, keys] of Object.entries(secrets)) {
    expect(doc).toContain(`\`${secret}\``);
    const volume = (pod.volumes as { name: string; secret?: { secretName: string; items: object[] } }[]).find(
      (v) => v.secret?.secretName === secret,
    );
    for (const [key, variable] of Object.entries(keys)) {
      expect(doc).toMatch(new RegExp(`\`${secret}\`[^\n]*\`${key.replace('.', '\\.')}\``));
      if (!volume) {
        expect(env[variable]).toEqual({ name: variable, valueFrom: { secretKeyRef: { name: secret, key } } });
        continue;
      }
      expect(volume.secret!.items).toContainEqual({ key, path: key });
      const mount = (pod.containers[0].volumeMounts as { name: string; mountPath: string; readOnly: boolean }[]).find(
        (m) => m.name === volume.name,
      )!;
      expect(mount.readOnly).toBe(true);
      expect(env[variable]!.value).toBe(`${mount.mountPath}/${key}`);
    }
  }
}

/**
 * What a service's own configuration makes of a Deployment's environment (the ConfigMap's, its own,
 * stand-ins of a secret's length for what Secrets hold, a real signing key), with `overrides`.
 */
function configOf(objects: K8sObject[], name: string, overrides: Record<string, string> = {}) {
  const deployment = named(objects, 'Deployment', name);
  const fromConfigMap = podOf(deployment).containers[0].envFrom ? named(objects, 'ConfigMap', 'pix-config').data! : {};
  const env: Record<string, string> = { ...fromConfigMap, PATH: process.env.PATH! };
  for (const variable of containerEnv(deployment)) env[variable.name] = variable.value ?? `stand-in ${'x'.repeat(32)}`;
  env.FACT_SIGNING_KEY = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'der', type: 'pkcs8' })
    .toString('base64');
  if (name === SIMULATOR) delete env.FACT_SIGNING_KEY;
  Object.assign(env, overrides);
  const config = path.join(root, 'services', name, 'dist', 'config.js');
  const read = spawnSync('node', ['-p', `JSON.stringify(require(${JSON.stringify(config)}).config)`], {
    env,
    encoding: 'utf8',
  });
  return { stderr: read.stderr, config: read.status === 0 ? (JSON.parse(read.stdout) as Record<string, unknown>) : {} };
}

/** The ingress and egress rules of a NetworkPolicy, as peers' component names (or ranges) and ports. */
function rulesOf(objects: K8sObject[], policy: string, direction: 'ingress' | 'egress'): string[] {
  type Rule = { from?: Peer[]; to?: Peer[]; ports?: { port: number }[] };
  type Peer = {
    podSelector?: { matchLabels: Record<string, string> };
    namespaceSelector?: { matchLabels: Record<string, string> };
    ipBlock?: { cidr: string };
  };
  const rules = (named(objects, 'NetworkPolicy', policy).spec![direction] ?? []) as Rule[];
  return rules.flatMap((rule) =>
    (rule.from ?? rule.to ?? []).map((peer) => {
      const who =
        peer.podSelector?.matchLabels['app.kubernetes.io/name'] ??
        peer.namespaceSelector?.matchLabels['kubernetes.io/metadata.name'] ??
        peer.ipBlock?.cidr;
      return `${who}:${(rule.ports ?? []).map((p) => p.port).join(',')}`;
    }),
  );
}

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };
const containerEnv = (o: K8sObject): EnvVar[] => podOf(o).containers[0].env;

/** Every Secret a pod template names, by env or volume. */
function secretsNamed(o: K8sObject): string[] {
  const pod = podOf(o);
  const fromEnv = (pod.containers as { env?: EnvVar[] }[]).flatMap((c) =>
    (c.env ?? []).flatMap((v) => (v.valueFrom?.secretKeyRef ? [v.valueFrom.secretKeyRef.name] : [])),
  );
  const fromVolumes = ((pod.volumes ?? []) as { secret?: { secretName: string } }[]).flatMap((v) =>
    v.secret ? [v.secret.secretName] : [],
  );
  return [...fromEnv, ...fromVolumes];
}

/** The adapter's NetworkPolicy rules that admit address ranges (not pods or namespaces). */
function rangeRules(objects: K8sObject[]): { from: { ipBlock: { cidr: string } }[]; ports: object[] }[] {
  return named(objects, 'NetworkPolicy', ADAPTER).spec!.ingress.filter((rule: { from: { ipBlock?: object }[] }) =>
    rule.from.some((peer) => peer.ipBlock),
  );
}

const callbackRoute = (objects: K8sObject[]) =>
  byKind(objects, 'Service').find((s) => s.metadata.name === `${ADAPTER}-callbacks`);

/** A PSP's homologation environment: test mode's connection (psp.test) when the simulator is off. */
const HOMOLOGATION: PspConnection = {
  apiUrl: 'https://homologacao.psp.example/api/v2',
  oauthUrl: 'https://homologacao.psp.example/oauth/token',
  receiverKey: 'teste@loja.example',
  callbackHost: 'psp-test-callbacks.pix.example.com',
  apiCidrs: ['198.51.100.0/28'],
  callbackCidrs: ['198.51.100.16/28'],
  callbackPins: ['dns:callbacks.homologacao.psp.example'],
};

function withPsp(psp: object): object {
  return { ...JSON.parse(fs.readFileSync(path.join(k8sDir, 'platform.json'), 'utf8')), psp };
}

/** What synthesising a settings file says when it refuses it. */
function refusal(settings: object): string {
  try {
    synthInto(settings);
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err);
  }
  throw new Error('the settings were accepted');
}

/**
 * NATS's configuration as `nats-server -t` checks it: the certificate files it names exist (a
 * throwaway CA and server certificate, made here with openssl).
 */
function checkNatsConfig(conf: string): { status: number | null; output: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-nats-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'].concat([
      '-subj',
      '/CN=nats',
      '-keyout',
      'tls.key',
      '-out',
      'tls.crt',
    ]),
    { cwd: dir, stdio: 'pipe' },
  );
  fs.copyFileSync(path.join(dir, 'tls.crt'), path.join(dir, 'ca.crt'));
  const file = path.join(dir, 'nats.conf');
  fs.writeFileSync(file, conf.replaceAll('/etc/nats-tls/', `${dir}/`));
  const check = spawnSync(natsServer, ['-t', '-c', file], { encoding: 'utf8', env: { POD_NAME: 'nats-0' } });
  return { status: check.status, output: check.stdout + check.stderr };
}

describe('k8s/dist', () => {
  const objects = readObjects(dist);

  it('equals a fresh synth of k8s/platform.json (run `make k8s` after changing k8s/)', () => {
    const fresh = synthInto(null);
    const names = fs.readdirSync(dist).sort();
    expect(fs.readdirSync(fresh).sort()).toEqual(names);
    for (const name of names) {
      expect(fs.readFileSync(path.join(fresh, name), 'utf8')).toBe(fs.readFileSync(path.join(dist, name), 'utf8'));
    }
  });

  it('validates every object against the Kubernetes and Prometheus Operator schemas', () => {
    const result = validate(dist);
    expect(result.output).toMatch(new RegExp(`^${objects.length} objects valid`));
    expect(result.status).toBe(0);
  });

  it('has a validator that refuses an invalid object and an unknown kind', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-k8s-bad-'));
    const bad = YAML.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: { replicas: 'two', selector: {}, template: {} },
    });
    fs.writeFileSync(path.join(dir, 'bad.yaml'), `${bad}---\napiVersion: example.com/v1\nkind: Widget\n`);
    const result = validate(dir);
    expect(result.status).toBe(1);
    expect(result.output).toContain('Deployment/x');
    expect(result.output).toContain('replicas');
    expect(result.output).toContain('no schema for example.com/v1 Widget');
  });

  it('gives every Deployment probes on the ops port, limits and a non-root read-only context', () => {
    const deployments = byKind(objects, 'Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([
      'gateway',
      'payments',
      'pix-provider-adapter',
      SIMULATOR,
      'webhook-dispatcher',
    ]);
    for (const deployment of deployments) {
      const pod = deployment.spec!.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      for (const container of pod.containers) {
        const ops = container.ports.find((p: { name: string }) => p.name === 'ops').containerPort;
        expect(container.livenessProbe.httpGet).toMatchObject({ path: '/healthz', port: ops });
        expect(container.readinessProbe.httpGet).toMatchObject({ path: '/readyz', port: ops });
        expect(container.resources.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
      }
    }
  });

  it('gives every service a Service, a PodDisruptionBudget and a HorizontalPodAutoscaler', () => {
    const services = byKind(objects, 'Deployment')
      .map((d) => d.metadata.name)
      .filter((name) => name !== SIMULATOR);
    expect(services.length).toBe(4);
    for (const name of services) {
      expect(byKind(objects, 'Service').some((s) => s.metadata.name === name)).toBe(true);
      expect(byKind(objects, 'PodDisruptionBudget').some((p) => p.metadata.name === name)).toBe(true);
      const hpa = byKind(objects, 'HorizontalPodAutoscaler').find((h) => h.metadata.name === name);
      expect(hpa?.spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
    }
  });

  it('references Secrets but never writes one, nor any nkey seed', () => {
    for (const secret of byKind(objects, 'Secret')) {
      expect(secret.data).toBeUndefined();
      expect(secret.stringData).toBeUndefined();
    }
    for (const name of fs.readdirSync(dist)) {
      expect(fs.readFileSync(path.join(dist, name), 'utf8')).not.toMatch(/\bS[UNAOC][A-Z2-7]{56}\b/);
    }
    const adapter = byKind(objects, 'Deployment').find((d) => d.metadata.name === 'pix-provider-adapter')!;
    const env = adapter.spec!.template.spec.containers[0].env;
    // The PSP's callback pins are public values, written as they are.
    expect(env).toContainEqual({ name: 'LIVE_PSP_CALLBACK_PINS', value: platform.psp.live.callbackPins.join(',') });
    const gateway = byKind(objects, 'Deployment').find((d) => d.metadata.name === 'gateway')!;
    expect(gateway.spec!.template.spec.containers[0].env).toContainEqual({
      name: 'DASHBOARD_SESSION_SECRET',
      valueFrom: { secretKeyRef: { name: 'pix-dashboard', key: 'session-secret' } },
    });
  });

  it('runs MongoDB with logins, a keyFile and TLS only, its Secrets referenced, never held', () => {
    const mongo = byKind(objects, 'StatefulSet').find((s) => s.metadata.name === 'mongodb')!;
    const pod = mongo.spec!.template.spec;
    const args: string[] = pod.containers[0].args;
    expect(args).toEqual(expect.arrayContaining(['--auth', '--keyFile', '--tlsCertificateKeyFile']));
    expect(args[args.indexOf('--tlsMode') + 1]).toBe('requireTLS');
    expect(pod.volumes).toEqual(
      expect.arrayContaining([
        { name: 'tls', secret: { secretName: 'pix-mongodb-tls', defaultMode: 0o440 } },
        { name: 'keyfile', secret: { secretName: 'pix-mongodb-keyfile', defaultMode: 0o440 } },
      ]),
    );
    expect(pod.containers[0].env).toContainEqual({
      name: 'MONGO_INITDB_ROOT_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'pix-mongodb-root', key: 'password' } },
    });
    const certificate = byKind(objects, 'Certificate').find((c) => c.metadata.name === 'mongodb')!;
    expect(certificate.spec).toMatchObject({
      secretName: 'pix-mongodb-tls',
      issuerRef: { name: 'pix-ca', kind: 'Issuer' },
      dnsNames: expect.arrayContaining(['mongodb-0.mongodb', 'mongodb-0.mongodb.pix.svc.cluster.local']),
    });
    expect(
      byKind(objects, 'Issuer')
        .map((i) => i.metadata.name)
        .sort(),
    ).toEqual(['pix-ca', 'pix-ca-root']);
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name === 'pix-config')!;
    // Several hosts: not a WHATWG URL. No login in it, TLS on, the CA named.
    const url = config.data!.MONGO_URL!;
    expect(url).not.toContain('@');
    expect(url).toMatch(/[?&]tls=true(&|$)/);
    expect(url).toContain('tlsCAFile=/etc/pix/mongodb-ca/ca.crt');
  });

  it('gives each service its own MongoDB login, whose role reaches only the collections of its models', () => {
    const job = byKind(objects, 'Job').find((j) => j.metadata.name === 'mongodb-init')!;
    const script: string = job.spec!.template.spec.containers[0].args[0];
    const grants = JSON.parse(/for \(const grant of (\[.*\])\) \{/.exec(script)![1]!) as {
      role: string;
      privileges: { resource: { db: string; collection: string }; actions: string[] }[];
    }[];
    for (const deployment of byKind(objects, 'Deployment')) {
      const name = deployment.metadata.name;
      const env = deployment.spec!.template.spec.containers[0].env;
      for (const [variable, key] of [
        ['MONGO_USERNAME', 'username'],
        ['MONGO_PASSWORD', 'password'],
      ]) {
        expect(env).toContainEqual({
          name: variable,
          valueFrom: { secretKeyRef: { name: `pix-mongodb-${name}`, key } },
        });
      }
      // The collection names the service's models declare, read from its source and from the
      // source of the workspace libraries it depends on.
      const sources = [path.join(root, 'services', name, 'src'), ...workspaceLibSources(name)];
      const declared = sources
        .flatMap((dir) =>
          fs
            .readdirSync(dir, { recursive: true, encoding: 'utf8' })
            .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
            .map((file) => path.join(dir, file)),
        )
        .flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/collection: '([a-z_]+)'/g)])
        .map((m) => m[1]);
      const grant = grants.find((g) => g.role === `pix-${name}`)!;
      expect(grant.privileges.map((p) => p.resource.collection).sort()).toEqual([...new Set(declared)].sort());
      for (const privilege of grant.privileges) {
        // The PSP simulator's state is its own: a database beside the platform's.
        expect(privilege.resource.db).toBe(name === SIMULATOR ? 'pix_psp' : 'pix');
        expect(privilege.actions).not.toContain('dropCollection');
      }
    }
    // The Job reads every password from a Secret; its command line names none.
    expect(job.spec!.template.spec.containers[0].command.join(' ')).not.toMatch(/password|:[^/]*@/i);
  });

  it('hands the services only the CA of MongoDB, and the gateway its sealing keys from a Secret', () => {
    for (const deployment of byKind(objects, 'Deployment')) {
      const pod = deployment.spec!.template.spec;
      expect(pod.volumes).toContainEqual({
        name: 'mongodb-ca',
        secret: { secretName: 'pix-mongodb-tls', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
      });
      // Whatever looks like a secret comes from a Secret, never from a value in the manifest.
      for (const variable of pod.containers[0].env as { name: string; value?: string }[]) {
        if (/PASSWORD|SECRET|KEYS/.test(variable.name)) expect(variable.value).toBeUndefined();
      }
    }
    const gateway = byKind(objects, 'Deployment').find((d) => d.metadata.name === 'gateway')!;
    expect(gateway.spec!.template.spec.containers[0].env).toContainEqual({
      name: 'SECRETS_KEYS',
      valueFrom: { secretKeyRef: { name: 'pix-secrets-keys', key: 'keys' } },
    });
  });

  it('gives each fact producer its signing key and its verifiers only its public keys, from Secrets', () => {
    const factEnv = (name: string) =>
      Object.fromEntries(
        (
          byKind(objects, 'Deployment').find((d) => d.metadata.name === name)!.spec!.template.spec.containers[0]
            .env as { name: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[]
        )
          .filter((variable) => /FACT/.test(variable.name))
          .map((variable) => [variable.name, variable.valueFrom?.secretKeyRef]),
      );
    expect(factEnv('pix-provider-adapter')).toEqual({
      FACT_SIGNING_KEY: { name: 'pix-adapter-fact-key', key: 'signing-key' },
    });
    expect(factEnv('payments')).toEqual({
      FACT_SIGNING_KEY: { name: 'pix-payments-fact-key', key: 'signing-key' },
      PIX_FACTS_PUBLIC_KEYS: { name: 'pix-adapter-fact-key', key: 'public-keys' },
    });
    for (const verifier of ['webhook-dispatcher', 'gateway']) {
      expect(factEnv(verifier)).toEqual({
        PAYMENT_FACTS_PUBLIC_KEYS: { name: 'pix-payments-fact-key', key: 'public-keys' },
      });
    }
  });

  it('has the gateway believe X-Forwarded-For as far as the ingress it ships, and no further', () => {
    const gateway = byKind(objects, 'Deployment').find((d) => d.metadata.name === 'gateway')!;
    expect(gateway.spec!.template.spec.containers[0].env).toContainEqual({
      name: 'TRUST_PROXY',
      value: String(platform.ingress.proxyHops),
    });
    expect(platform.ingress.proxyHops).toBe(1);
  });

  it('lets ingress reach only the gateway, and the dispatcher only the public internet', () => {
    const policies = byKind(objects, 'NetworkPolicy');
    expect(policies.find((p) => p.metadata.name === 'default-deny')?.spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    });
    const ingressNamespaces = policies.flatMap((p) =>
      (p.spec!.ingress ?? []).flatMap((rule: { from: { namespaceSelector?: { matchLabels: object } }[] }) =>
        rule.from.filter((peer) => peer.namespaceSelector).map((peer) => [p.metadata.name, peer.namespaceSelector]),
      ),
    );
    const fromIngressController = ingressNamespaces.filter(
      ([, selector]) =>
        (selector as { matchLabels: Record<string, string> }).matchLabels['kubernetes.io/metadata.name'] ===
        'ingress-nginx',
    );
    expect(fromIngressController.map(([name]) => name)).toEqual(['gateway']);
    const dispatcher = policies.find((p) => p.metadata.name === 'webhook-dispatcher')!;
    const internet = dispatcher.spec!.egress.find((rule: { to: { ipBlock?: object }[] }) => rule.to[0]?.ipBlock);
    expect(internet.to[0].ipBlock.cidr).toBe('0.0.0.0/0');
    expect(internet.to[0].ipBlock.except).toEqual(
      expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']),
    );
  });

  it('runs NATS as a 3-node JetStream cluster whose configuration nats-server accepts', () => {
    const nats = byKind(objects, 'StatefulSet').find((s) => s.metadata.name === 'nats')!;
    expect(nats.spec!.replicas).toBe(3);
    // Each stream is replicated over the three servers.
    expect(byKind(objects, 'ConfigMap').find((c) => c.metadata.name === 'pix-config')!.data!.JETSTREAM_REPLICAS).toBe(
      '3',
    );
    const conf = byKind(objects, 'ConfigMap').find((c) => c.metadata.name === 'nats-config')!.data!['nats.conf']!;
    const check = checkNatsConfig(conf);
    expect(check.output).toContain('configuration file');
    expect(check.status).toBe(0);
    expect(byKind(objects, 'StatefulSet').find((s) => s.metadata.name === 'mongodb')?.spec?.replicas).toBe(3);
  });

  it('runs each Go server with GOMAXPROCS its own CPU limit, in whole cores: NATS, and FerretDB on a small node', () => {
    const smallNode = readObjects(synthInto(JSON.parse(fs.readFileSync(path.join(k8sDir, 'small-node.json'), 'utf8'))));
    const servers = [
      podOf(named(objects, 'StatefulSet', 'nats')).containers[0],
      podOf(named(smallNode, 'StatefulSet', 'mongodb')).containers[0],
    ];
    expect(servers.map((c) => c.name)).toEqual(['nats', 'engine']);
    for (const container of servers) {
      expect(container.resources.limits.cpu).toBe('1');
      expect(container.env).toContainEqual({
        name: 'GOMAXPROCS',
        valueFrom: { resourceFieldRef: { containerName: container.name, resource: 'limits.cpu' } },
      });
    }
  });

  it("gives NATS the platform's authorization: each identity's public keys, no anonymous user", () => {
    const conf = named(objects, 'ConfigMap', 'nats-config').data!['nats.conf']!;
    // An account per identity, JetStream in its own (docs/decisions/nats-accounts.md).
    expect(conf).toMatch(/^accounts \{$/m);
    expect(conf).toMatch(/^ {2}JETSTREAM \{\n {4}jetstream: enabled$/m);
    for (const [identity, keys] of Object.entries(platform.nats.publicKeys)) {
      const variable = `PERMISSIONS_${identity.toUpperCase().replaceAll('-', '_')}`;
      for (const key of keys) expect(conf).toContain(`{ nkey: ${key}, permissions: $${variable} }`);
    }
    expect(conf).not.toMatch(/^\s*(no_auth_user|user|password|token)\s*[:=]/m);
    // Every member the same: the routes carry no authorization of their own to differ in.
    expect(conf).toContain('server_name: $POD_NAME');
  });

  it('speaks TLS to clients and between members, with a certificate cert-manager issues', () => {
    const conf = named(objects, 'ConfigMap', 'nats-config').data!['nats.conf']!;
    expect(conf).toMatch(/^tls \{\n {2}cert_file: "\/etc\/nats-tls\/tls\.crt"/m);
    expect(conf).toMatch(/cluster \{[^]*tls \{[^]*verify: true[^]*routes/);
    const certificate = named(objects, 'Certificate', 'nats');
    expect(certificate.spec).toMatchObject({
      secretName: 'nats-tls',
      usages: expect.arrayContaining(['server auth', 'client auth']),
    });
    // Clients reach nats-0.nats …, routes too: the wildcard names them.
    expect(certificate.spec!.dnsNames).toEqual(expect.arrayContaining(['nats', '*.nats']));
    // The names in NATS_URL, each as it is: Node's TLS matches no wildcard over a single label.
    expect(certificate.spec!.dnsNames).toEqual(expect.arrayContaining(['nats-0.nats', 'nats-1.nats', 'nats-2.nats']));
    expect(named(objects, 'Issuer', 'pix-ca').spec).toEqual({ ca: { secretName: 'pix-ca' } });
    const pod = podOf(named(objects, 'StatefulSet', 'nats'));
    expect(pod.volumes).toContainEqual({ name: 'tls', secret: { secretName: 'nats-tls', defaultMode: 0o440 } });
    // A renewed certificate or a changed configuration is reloaded, by a process beside the server's.
    expect(pod.shareProcessNamespace).toBe(true);
    expect(pod.containers.map((c: { name: string }) => c.name)).toEqual(['nats', 'reloader']);
    const config = named(objects, 'ConfigMap', 'pix-config').data!;
    expect(config.NATS_URL!.split(',').every((url) => url.startsWith('tls://nats-'))).toBe(true);
    expect(config.NATS_CA_FILE).toBe('/etc/nats-ca/ca.crt');
  });

  it('gives each service its own NATS identity, from a Secret of its own, and the CA alone of the TLS Secret', () => {
    const config = named(objects, 'ConfigMap', 'pix-config').data!;
    expect(config.NATS_NKEY_SEED_FILE).toBe('/etc/nats-identity/seed');
    // The PSP simulator speaks no NATS: no identity, no CA, not the ConfigMap that names them.
    const simulator = podOf(named(objects, 'Deployment', SIMULATOR));
    expect(simulator.volumes.map((v: { name: string }) => v.name)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^nats-/)]),
    );
    expect(simulator.containers[0].envFrom).toBeUndefined();
    for (const deployment of byKind(objects, 'Deployment').filter((d) => d.metadata.name !== SIMULATOR)) {
      const pod = podOf(deployment);
      expect(pod.volumes).toContainEqual({
        name: 'nats-identity',
        secret: {
          secretName: `pix-nats-${deployment.metadata.name}`,
          defaultMode: 0o440,
          items: [{ key: 'seed', path: 'seed' }],
        },
      });
      expect(pod.volumes).toContainEqual({
        name: 'nats-ca',
        secret: { secretName: 'nats-tls', defaultMode: 0o444, items: [{ key: 'ca.crt', path: 'ca.crt' }] },
      });
    }
  });

  it('provisions JetStream with a Job of the admin image, as the provisioner identity, before the services bind', () => {
    const [job] = byKind(objects, 'Job').filter((j) => j.metadata.name.startsWith('nats-provision-'));
    const pod = podOf(job!);
    expect(pod.containers[0]).toMatchObject({
      image: 'registry.example.com/pix/admin:0.1.0',
      command: ['node', 'main.js', 'nats', 'provision'],
    });
    expect(pod.volumes).toContainEqual(
      expect.objectContaining({ secret: expect.objectContaining({ secretName: 'pix-nats-provisioner' }) }),
    );
    const nats = named(objects, 'NetworkPolicy', 'nats');
    const clients = nats.spec!.ingress[0].from.map(
      (peer: { podSelector: { matchLabels: object } }) => peer.podSelector.matchLabels,
    );
    expect(clients).toContainEqual({ 'app.kubernetes.io/name': 'nats-provision' });
  });

  it('hard-codes no mode: no PIX_PROVIDER in any manifest of any profile, nor a mode in k8s/src', () => {
    const profiles = [
      dist,
      synthInto(withPsp({})),
      synthInto(withPsp({ test: HOMOLOGATION, simulator: { enabled: false } })),
    ];
    for (const dir of profiles) {
      for (const name of fs.readdirSync(dir)) {
        expect(fs.readFileSync(path.join(dir, name), 'utf8')).not.toMatch(/\bPIX_PROVIDER\b|apipix/);
      }
    }
    // Both modes are served by one adapter: nothing in the sources chooses one for a deployment.
    for (const file of fs.readdirSync(path.join(k8sDir, 'src'))) {
      expect(fs.readFileSync(path.join(k8sDir, 'src', file), 'utf8')).not.toMatch(/\bPIX_PROVIDER\b|apipix|provider:/);
    }
  });

  it("hands the adapter alone the live connection's Secrets, by the names and keys docs/go-live.md gives", () => {
    const adapter = named(objects, 'Deployment', ADAPTER);
    const goLive = fs.readFileSync(path.join(root, 'docs', 'go-live.md'), 'utf8');
    expectSecretsAsDocumented(adapter, LIVE_SECRETS, goLive);
    const env = Object.fromEntries(containerEnv(adapter).map((v) => [v.name, v]));
    expect(env.LIVE_PSP_API_URL!.value).toBe(platform.psp.live.apiUrl);
    expect(env.LIVE_PSP_OAUTH_URL!.value).toBe(platform.psp.live.oauthUrl);
    expect(env.LIVE_PSP_RECEIVER_KEY!.value).toBe(platform.psp.live.receiverKey);
    // The adapter registers where the PSP calls back as it starts: the callback route's name.
    expect(env.LIVE_PSP_CALLBACK_URL!.value).toBe(`https://${platform.psp.live.callbackHost}/psp/callbacks`);
    expect(env.LIVE_PSP_CALLBACK_PORT!.value).toBe(String(LIVE_CALLBACK_PORT));
    // Its calls as its PSP allows them; what the settings leave out is the adapter's default.
    expect(env.LIVE_PSP_TIMEOUT!.value).toBe(platform.psp.live.calls?.timeout);
    expect(env.LIVE_PSP_MAX_CONNECTIONS!.value).toBe(String(platform.psp.live.calls?.maxConnections));
    expect(env.LIVE_PSP_RETRY_LIMIT).toBeUndefined();
    expect(env.PIX_MAX_CONNECTIONS).toBeUndefined();
    // Its files are its own: no folder is shared with the test connection's.
    const mounts = podOf(adapter).containers[0].volumeMounts as { mountPath: string }[];
    expect(new Set(mounts.map((m) => m.mountPath)).size).toBe(mounts.length);
    const others = [...byKind(objects, 'Deployment'), ...byKind(objects, 'StatefulSet'), ...byKind(objects, 'Job')];
    expect(
      others.filter((o) => secretsNamed(o).some((name) => name in LIVE_SECRETS)).map((o) => o.metadata.name),
    ).toEqual([ADAPTER]);
  });

  it('gives the adapter an environment its own schema accepts, with both connections', () => {
    const { stderr, config } = configOf(objects, ADAPTER);
    expect(stderr).toBe('');
    expect(config).toMatchObject({
      PIX_API_URL: 'https://psp-simulator:8443/v2',
      PIX_TLS_CERT_FILE: '/etc/pix/psp-api/tls.crt',
      CALLBACK_CLIENT_CA_FILE: '/etc/pix/psp-callback-client-ca/ca.crt',
      LIVE_PSP_API_URL: platform.psp.live.apiUrl,
      LIVE_PSP_CALLBACK_PORT: 8082,
    });
    // The adapter opens both: the simulator's for test mode, the PSP's for live.
    const connections = spawnSync(
      'node',
      [
        '-e',
        `const { connectionSettings } = require(${JSON.stringify(path.join(root, 'services', ADAPTER, 'dist', 'psp-connection.js'))});
         process.stdout.write(JSON.stringify(connectionSettings(${JSON.stringify(config)}).map((c) => [c.name, c.apiUrl, c.callbackPort, c.calls])));`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(connections.stdout)).toEqual([
      ['test', 'https://psp-simulator:8443/v2', 8081, { timeoutMs: 5000, retryLimit: 3, maxConnections: 64 }],
      ['live', platform.psp.live.apiUrl, 8082, { timeoutMs: 10_000, retryLimit: 3, maxConnections: 32 }],
    ]);
  });

  it('routes the PSP to the live callback port through a load balancer of its own, TLS passed through', () => {
    const route = callbackRoute(objects)!;
    expect(route.spec).toMatchObject({
      type: 'LoadBalancer',
      // The PSP's own address reaches the pod, which the NetworkPolicy admits by.
      externalTrafficPolicy: 'Local',
      loadBalancerSourceRanges: platform.psp.live.callbackCidrs,
      selector: { 'app.kubernetes.io/name': ADAPTER },
      ports: [{ name: 'live-callbacks', protocol: 'TCP', port: 443, targetPort: 'live-callbacks' }],
    });
    expect(route.metadata).toMatchObject({
      annotations: { 'external-dns.alpha.kubernetes.io/hostname': platform.psp.live.callbackHost },
    });
    // A TCP route to the port where the adapter itself ends the live mutual TLS, with the PSP's CA.
    const adapter = podOf(named(objects, 'Deployment', ADAPTER)).containers[0];
    expect(adapter.ports).toContainEqual({ name: 'live-callbacks', containerPort: LIVE_CALLBACK_PORT });
    expect(adapter.env.map((v: EnvVar) => v.name)).toEqual(
      expect.arrayContaining([
        'LIVE_PSP_CALLBACK_TLS_CERT_FILE',
        'LIVE_PSP_CALLBACK_CLIENT_CA_FILE',
        'LIVE_PSP_CALLBACK_PINS',
        'LIVE_PSP_CALLBACK_PORT',
      ]),
    );
    // One route, the live connection's: test mode's PSP (the simulator) calls back inside the namespace.
    expect(byKind(objects, 'Service').filter((s) => s.spec!.type === 'LoadBalancer')).toEqual([route]);
    // No proxy between them that would end the TLS (the gateway's Ingress routes to the gateway only).
    const backends = byKind(objects, 'Ingress').flatMap((i) =>
      i.spec!.rules.flatMap((r: { http: { paths: { backend: { service: { name: string } } }[] } }) =>
        r.http.paths.map((p) => p.backend.service.name),
      ),
    );
    expect(backends).toEqual(['gateway']);
  });

  it("admits the PSP's callback ranges to the live callback port only, and no other range anywhere", () => {
    expect(rangeRules(objects)).toEqual([
      {
        from: platform.psp.live.callbackCidrs.map((cidr) => ({ ipBlock: { cidr } })),
        ports: [{ protocol: 'TCP', port: LIVE_CALLBACK_PORT }],
      },
    ]);
    for (const policy of byKind(objects, 'NetworkPolicy').filter((p) => p.metadata.name !== ADAPTER)) {
      const ranges = (policy.spec!.ingress ?? []).flatMap((rule: { from: { ipBlock?: object }[] }) =>
        rule.from.filter((peer) => peer.ipBlock),
      );
      expect(ranges).toEqual([]);
    }
  });

  it("admits test mode's callback port from the simulator's pods alone, and the simulator to no other", () => {
    const ingress = rulesOf(objects, ADAPTER, 'ingress');
    expect(ingress.filter((rule) => rule.split(':')[1]!.split(',').includes(String(CALLBACK_PORT)))).toEqual([
      `${SIMULATOR}:${CALLBACK_PORT}`,
    ]);
    expect(ingress.filter((rule) => rule.startsWith(`${SIMULATOR}:`))).toEqual([`${SIMULATOR}:${CALLBACK_PORT}`]);
    expect(rulesOf(objects, SIMULATOR, 'egress').sort()).toEqual(['mongodb:27017', `${ADAPTER}:${CALLBACK_PORT}`]);
  });

  it("lets the adapter reach the live PSP's API ranges and the simulator, and no other address", () => {
    expect(rulesOf(objects, ADAPTER, 'egress').sort()).toEqual(
      [
        'nats:4222',
        'mongodb:27017',
        `${SIMULATOR}:8443,8082`,
        ...platform.psp.live.apiCidrs.map((c) => `${c}:443`),
      ].sort(),
    );
  });

  it('holds nothing secret: no key or certificate, the PSP client from a Secret', () => {
    for (const name of fs.readdirSync(dist)) {
      const text = fs.readFileSync(path.join(dist, name), 'utf8');
      expect(text).not.toMatch(/-----BEGIN|PRIVATE KEY|client-secret:|callback-secret:/);
    }
    for (const deployment of byKind(objects, 'Deployment')) {
      for (const variable of containerEnv(deployment)) {
        if (/SECRET|PASSWORD|CLIENT_ID|SIGNING_KEY/.test(variable.name)) {
          expect(variable).toEqual({ name: variable.name, valueFrom: { secretKeyRef: expect.any(Object) } });
        }
      }
    }
  });

  it('packages the alert rules as a PrometheusRule that promtool accepts', () => {
    const rule = byKind(objects, 'PrometheusRule')[0]!;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pix-rules-')), 'rules.yaml');
    fs.writeFileSync(file, YAML.stringify(rule.spec));
    const check = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toContain('SUCCESS');
    expect(check.status).toBe(0);
  });
});

describe('k8s with managed NATS and MongoDB', () => {
  const settings = {
    ...JSON.parse(fs.readFileSync(path.join(k8sDir, 'platform.json'), 'utf8')),
    nats: {
      inCluster: false,
      url: 'tls://nats.managed.example.com:4222',
      cidrs: ['198.51.100.0/24'],
      streamReplicas: 5,
      publicKeys: platform.nats.publicKeys,
    },
    mongodb: { inCluster: false, cidrs: ['198.51.100.128/25'] },
    monitoring: { namespace: 'monitoring', prometheusOperator: false },
  };
  const dir = synthInto(settings);
  const objects = readObjects(dir);

  it('runs neither StatefulSet and reaches the managed ones by URL and address range', () => {
    expect(byKind(objects, 'StatefulSet')).toEqual([]);
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name === 'pix-config')!;
    const payments = byKind(objects, 'Deployment').find((d) => d.metadata.name === 'payments')!;
    expect(config.data!.NATS_URL).toBe('tls://nats.managed.example.com:4222');
    // Verified with the CA the SRE puts in pix-nats-ca; each service still with its own seed.
    expect(config.data!.NATS_CA_FILE).toBe('/etc/nats-ca/ca.crt');
    expect(payments.spec!.template.spec.volumes).toContainEqual(
      expect.objectContaining({ secret: expect.objectContaining({ secretName: 'pix-nats-ca' }) }),
    );
    expect(config.data!.MONGO_URL).toBeUndefined();
    expect(config.data!.JETSTREAM_REPLICAS).toBe('5');
    expect(payments.spec!.template.spec.containers[0].env).toContainEqual({
      name: 'MONGO_URL',
      valueFrom: { secretKeyRef: { name: 'pix-mongodb', key: 'url' } },
    });
    const policy = byKind(objects, 'NetworkPolicy').find((p) => p.metadata.name === 'payments')!;
    expect(policy.spec!.egress).toEqual([
      { to: [{ ipBlock: { cidr: '198.51.100.0/24' } }], ports: [{ protocol: 'TCP', port: 4222 }] },
      { to: [{ ipBlock: { cidr: '198.51.100.128/25' } }], ports: [{ protocol: 'TCP', port: 27017 }] },
    ]);
  });

  it('is valid too, with the alert rules in a ConfigMap', () => {
    expect(validate(dir).status).toBe(0);
    expect(byKind(objects, 'PrometheusRule')).toEqual([]);
    expect(byKind(objects, 'ConfigMap').some((c) => c.metadata.name === 'pix-prometheus-rules')).toBe(true);
  });
});

describe('k8s without cert-manager', () => {
  const settings = {
    ...JSON.parse(fs.readFileSync(path.join(k8sDir, 'platform.json'), 'utf8')),
    tls: { certManager: false },
  };
  const objects = readObjects(synthInto(settings));

  it('issues no certificate: NATS still reads it from the Secret nats-tls, made by hand', () => {
    expect(objects.filter((o) => o.apiVersion.startsWith('cert-manager.io/'))).toEqual([]);
    expect(podOf(named(objects, 'StatefulSet', 'nats')).volumes).toContainEqual({
      name: 'tls',
      secret: { secretName: 'nats-tls', defaultMode: 0o440 },
    });
  });
});

describe('k8s in test mode alone (no psp.live)', () => {
  const dir = synthInto(withPsp({}));
  const objects = readObjects(dir);
  const deploy = fs.readFileSync(path.join(root, 'docs', 'deploy.md'), 'utf8');

  it('mounts no live connection, opens no route and no port of its, and reaches no address range', () => {
    const adapter = named(objects, 'Deployment', ADAPTER);
    expect(secretsNamed(adapter).filter((name) => name in LIVE_SECRETS)).toEqual([]);
    expect(containerEnv(adapter).filter((v) => v.name.startsWith('LIVE_PSP_'))).toEqual([]);
    expect(podOf(adapter).containers[0].ports.map((p: { name: string }) => p.name)).not.toContain('live-callbacks');
    expect(byKind(objects, 'Service').filter((s) => s.spec!.type === 'LoadBalancer')).toEqual([]);
    expect(rangeRules(objects)).toEqual([]);
    expect(rulesOf(objects, ADAPTER, 'egress').filter((rule) => /^\d/.test(rule))).toEqual([]);
  });

  it('is valid against the Kubernetes schemas', () => {
    const result = validate(dir);
    expect(result.output).toMatch(new RegExp(`^${objects.length} objects valid`));
    expect(result.status).toBe(0);
  });

  it("wires the adapter to the simulator's Service over API Pix, with the simulator's Secrets", () => {
    const adapter = named(objects, 'Deployment', ADAPTER);
    const env = Object.fromEntries(containerEnv(adapter).map((v) => [v.name, v.value]));
    expect(env).toMatchObject({
      PIX_API_URL: 'https://psp-simulator:8443/v2',
      PIX_OAUTH_URL: 'https://psp-simulator:8443/oauth/token',
      PSP_BACKOFFICE_URL: 'http://psp-simulator:8082',
      PIX_CALLBACK_URL: `https://${ADAPTER}:${CALLBACK_PORT}/psp/callbacks`,
      PIX_RECEIVER_KEY: 'recebimentos@pix.local',
      PSP_CALLBACK_PINS: 'cn:psp-callback-client',
    });
    expectSecretsAsDocumented(adapter, SIMULATOR_CONNECTION_SECRETS, deploy);
    // Where the URLs point: the simulator's Service, and the adapter's callback port on its own.
    const service = named(objects, 'Service', SIMULATOR);
    expect(service.spec!.ports).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'api', port: 8443 }),
        expect.objectContaining({ name: 'back-office', port: 8082 }),
      ]),
    );
    expect(named(objects, 'Service', ADAPTER).spec!.ports).toContainEqual(
      expect.objectContaining({ port: CALLBACK_PORT }),
    );
  });

  it('gives the adapter settings its schema takes', () => {
    const { stderr, config } = configOf(objects, ADAPTER);
    expect(stderr).toBe('');
    expect(config).toMatchObject({ PIX_API_URL: 'https://psp-simulator:8443/v2' });
  });

  it('runs one simulator, on its own login and database, with its Secrets, which its schema takes', () => {
    const simulator = named(objects, 'Deployment', SIMULATOR);
    expect(simulator.spec!.replicas).toBe(1);
    expect(byKind(objects, 'HorizontalPodAutoscaler').map((h) => h.metadata.name)).not.toContain(SIMULATOR);
    expectSecretsAsDocumented(simulator, SIMULATOR_OWN_SECRETS, deploy);
    const { stderr, config } = configOf(objects, SIMULATOR);
    expect(stderr).toBe('');
    expect(config).toMatchObject({ API_HOST: '0.0.0.0', BACKOFFICE_HOST: '0.0.0.0', API_PORT: 8443 });
    expect(String(config.MONGO_URL)).toMatch(/\/pix_psp\?/);
    // Its Secrets reach it and the adapter (the OAuth2 client they share), nothing else.
    const own = Object.keys(SIMULATOR_OWN_SECRETS).filter((name) => name !== 'pix-psp-simulator-client');
    const workloads = [...byKind(objects, 'Deployment'), ...byKind(objects, 'StatefulSet')];
    for (const other of workloads.filter((o) => o.metadata.name !== SIMULATOR)) {
      expect(secretsNamed(other).filter((name) => own.includes(name))).toEqual([]);
    }
    for (const other of workloads.filter((o) => ![SIMULATOR, ADAPTER].includes(o.metadata.name))) {
      expect(secretsNamed(other).filter((name) => name.startsWith('pix-psp-simulator-'))).toEqual([]);
    }
  });

  it('lets the adapter alone reach API Pix and the back office, and the simulator call back the adapter alone', () => {
    expect(rulesOf(objects, SIMULATOR, 'ingress').sort()).toEqual(['monitoring:9105', `${ADAPTER}:8443,8082`]);
    expect(rulesOf(objects, SIMULATOR, 'egress').sort()).toEqual(['mongodb:27017', `${ADAPTER}:${CALLBACK_PORT}`]);
    expect(rulesOf(objects, ADAPTER, 'ingress')).toContain(`${SIMULATOR}:${CALLBACK_PORT}`);
    expect(rulesOf(objects, ADAPTER, 'egress')).toContain(`${SIMULATOR}:8443,8082`);
    expect(rulesOf(objects, 'mongodb', 'ingress')).toContain(`${SIMULATOR}:27017`);
    // No other workload reaches the simulator, nor it them.
    for (const policy of byKind(objects, 'NetworkPolicy').filter(
      (p) => ![ADAPTER, 'mongodb'].includes(p.metadata.name),
    )) {
      const rules = [
        ...rulesOf(objects, policy.metadata.name, 'ingress'),
        ...rulesOf(objects, policy.metadata.name, 'egress'),
      ];
      if (policy.metadata.name !== SIMULATOR)
        expect(rules.filter((rule) => rule.startsWith(`${SIMULATOR}:`))).toEqual([]);
    }
  });
});

describe('k8s with the live connection and the simulator beside it (k8s/platform.json)', () => {
  const objects = readObjects(dist);
  const deploy = fs.readFileSync(path.join(root, 'docs', 'deploy.md'), 'utf8');

  it("runs the simulator as test mode's connection beside the live one, in one adapter", () => {
    expect(named(objects, 'Deployment', SIMULATOR)).toBeDefined();
    const adapter = named(objects, 'Deployment', ADAPTER);
    const env = Object.fromEntries(containerEnv(adapter).map((v) => [v.name, v.value]));
    expect(env).toMatchObject({
      PIX_API_URL: 'https://psp-simulator:8443/v2',
      PSP_BACKOFFICE_URL: 'http://psp-simulator:8082',
      LIVE_PSP_API_URL: platform.psp.live.apiUrl,
    });
    expectSecretsAsDocumented(adapter, SIMULATOR_CONNECTION_SECRETS, deploy);
  });
});

describe('k8s without the simulator: test mode at a PSP homologation environment (psp.test)', () => {
  const dir = synthInto(withPsp({ ...platform.psp, test: HOMOLOGATION, simulator: { enabled: false } }));
  const objects = readObjects(dir);
  const deploy = fs.readFileSync(path.join(root, 'docs', 'deploy.md'), 'utf8');

  it('renders no simulator, no login of its, no policy naming it, and stays valid', () => {
    const mentions = fs
      .readdirSync(dir)
      .filter((name) => fs.readFileSync(path.join(dir, name), 'utf8').includes(SIMULATOR));
    expect(mentions).toEqual([]);
    expect(byKind(objects, 'Deployment').map((d) => d.metadata.name)).not.toContain(SIMULATOR);
    expect(validate(dir).status).toBe(0);
  });

  it('wires the test connection to the homologation environment, with its own Secrets as docs/deploy.md names them', () => {
    const adapter = named(objects, 'Deployment', ADAPTER);
    expectSecretsAsDocumented(adapter, TEST_SECRETS, deploy);
    expectSecretsAsDocumented(adapter, LIVE_SECRETS, fs.readFileSync(path.join(root, 'docs', 'go-live.md'), 'utf8'));
    const env = Object.fromEntries(containerEnv(adapter).map((v) => [v.name, v.value]));
    expect(env).toMatchObject({
      PIX_API_URL: HOMOLOGATION.apiUrl,
      PIX_OAUTH_URL: HOMOLOGATION.oauthUrl,
      PIX_RECEIVER_KEY: HOMOLOGATION.receiverKey,
      PIX_CALLBACK_URL: `https://${HOMOLOGATION.callbackHost}/psp/callbacks`,
      PSP_CALLBACK_PINS: HOMOLOGATION.callbackPins.join(','),
      LIVE_PSP_API_URL: platform.psp.live.apiUrl,
    });
    // No simulator: no back office, and the sandbox commands are not served.
    expect(env.PSP_BACKOFFICE_URL).toBeUndefined();
    const { stderr, config } = configOf(objects, ADAPTER);
    expect(stderr).toBe('');
    expect(config).toMatchObject({ PIX_API_URL: HOMOLOGATION.apiUrl, LIVE_PSP_API_URL: platform.psp.live.apiUrl });
  });

  it('gives each connection a route and ranges of its own: test mode to 8081, live mode to 8082', () => {
    const routes = Object.fromEntries(
      byKind(objects, 'Service')
        .filter((s) => s.spec!.type === 'LoadBalancer')
        .map((s) => [s.metadata.name, [s.spec!.loadBalancerSourceRanges, s.spec!.ports[0].targetPort]]),
    );
    expect(routes).toEqual({
      [`${ADAPTER}-callbacks`]: [platform.psp.live.callbackCidrs, 'live-callbacks'],
      [`${ADAPTER}-test-callbacks`]: [HOMOLOGATION.callbackCidrs, 'callbacks'],
    });
    expect(rangeRules(objects)).toEqual([
      {
        from: [{ ipBlock: { cidr: HOMOLOGATION.callbackCidrs[0] } }],
        ports: [{ protocol: 'TCP', port: CALLBACK_PORT }],
      },
      {
        from: platform.psp.live.callbackCidrs.map((cidr) => ({ ipBlock: { cidr } })),
        ports: [{ protocol: 'TCP', port: LIVE_CALLBACK_PORT }],
      },
    ]);
    expect(rulesOf(objects, ADAPTER, 'egress').filter((rule) => /^\d/.test(rule))).toEqual([
      `${HOMOLOGATION.apiCidrs[0]}:443`,
      ...platform.psp.live.apiCidrs.map((cidr) => `${cidr}:443`),
    ]);
  });
});

describe('k8s with the live connection and no callback ranges', () => {
  const live = {
    ...platform.psp.live,
    apiUrl: 'https://pix.psp.example:8443/api/v2',
    oauthUrl: undefined,
    callbackCidrs: [],
  };
  const objects = readObjects(synthInto(withPsp({ live })));

  it('renders no route and admits no range, and still reaches the PSP at the ports of its URLs', () => {
    expect(callbackRoute(objects)).toBeUndefined();
    expect(rangeRules(objects)).toEqual([]);
    expect(secretsNamed(named(objects, 'Deployment', ADAPTER))).toEqual(
      expect.arrayContaining(Object.keys(LIVE_SECRETS)),
    );
    expect(rulesOf(objects, ADAPTER, 'egress').filter((rule) => /^\d/.test(rule))).toEqual(
      live.apiCidrs.map((cidr) => `${cidr}:8443`),
    );
  });
});

describe('k8s settings of the PSP', () => {
  it('refuses the simulator off without psp.test, and psp.test beside the simulator: test mode has one PSP', () => {
    expect(refusal(withPsp({ ...platform.psp, simulator: { enabled: false } }))).toContain(
      'psp.test: required with psp.simulator.enabled false',
    );
    expect(refusal(withPsp({ ...platform.psp, test: HOMOLOGATION }))).toContain(
      'psp.test: only with psp.simulator.enabled false',
    );
  });

  it('refuses a connection without pins or API ranges, a URL not https://, calls out of bounds, and the old mode setting', () => {
    const live = platform.psp.live;
    expect(refusal(withPsp({ live: { ...live, callbackPins: [] } }))).toContain('psp.live.callbackPins');
    expect(refusal(withPsp({ live: { ...live, apiCidrs: [] } }))).toContain('psp.live.apiCidrs');
    expect(refusal(withPsp({ live: { ...live, apiUrl: 'http://pix.psp.example' } }))).toContain('psp.live.apiUrl');
    expect(refusal(withPsp({ test: { ...HOMOLOGATION, callbackPins: [] }, simulator: { enabled: false } }))).toContain(
      'psp.test.callbackPins',
    );
    expect(refusal(withPsp({ live: { ...live, calls: { timeout: 'soon' } } }))).toContain('psp.live.calls.timeout');
    expect(refusal(withPsp({ live: { ...live, calls: { maxConnections: 0 } } }))).toContain(
      'psp.live.calls.maxConnections',
    );
    // A settings file of before: its mode and ranges would be dropped in silence, so it is refused.
    expect(refusal(withPsp({ ...platform.psp, provider: 'apipix' }))).toMatch(/psp: Unrecognized key: "provider"/);
  });
});

describe('k8s/small-node.json, the profile `make k8s-test` runs on one 2-core node', () => {
  const small = JSON.parse(fs.readFileSync(path.join(k8sDir, 'small-node.json'), 'utf8')) as {
    cpuRequestScale: number;
  };
  const dir = synthInto(small);
  const objects = readObjects(dir);
  const production = readObjects(dist);
  const millis = (cpu: string) => (cpu.endsWith('m') ? Number(cpu.slice(0, -1)) : Number(cpu) * 1000);
  const workloads = (list: K8sObject[]) => list.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));

  it('is valid', () => {
    expect(validate(dir).status).toBe(0);
  });

  it('runs the local engine in place of the MongoDB replica set, under the same name, and substitutes nothing else', () => {
    const engine = named(objects, 'StatefulSet', 'mongodb');
    expect(engine.spec!.replicas).toBe(1);
    expect(podOf(engine).containers.map((c: { image: string }) => c.image)).toEqual(['localhost/pix/engine:local']);
    const config = named(objects, 'ConfigMap', 'pix-config');
    expect(config.data!.MONGO_URL).toBe('mongodb://mongodb-0.mongodb:27017/pix');
    // The same workloads as production's but MongoDB's init Job, which the engine (no logins) needs not.
    const names = (list: K8sObject[]) =>
      workloads(list)
        .map((o) => `${o.kind}/${o.metadata.name.replace(/-[0-9a-f]{10}$/, '')}`)
        .sort();
    expect(names(objects)).toEqual(names(production).filter((n) => !n.startsWith('Job/mongodb-init')));
    for (const deployment of byKind(objects, 'Deployment')) {
      const env = podOf(deployment).containers[0].env ?? [];
      expect(env.map((e: { name: string }) => e.name)).not.toContain('MONGO_PASSWORD');
    }
  });

  it("runs the PSP simulator as test mode's PSP on a database of the engine's, and no live connection", () => {
    const envOf = (name: string) =>
      Object.fromEntries(
        (podOf(named(objects, 'Deployment', name)).containers[0].env as { name: string; value?: string }[]).map((e) => [
          e.name,
          e.value,
        ]),
      );
    const simulator = envOf('psp-simulator');
    expect(simulator.MONGO_URL).toBe('mongodb://mongodb-0.mongodb:27017/pix_psp');
    expect(Object.keys(simulator)).not.toContain('MONGO_USERNAME');
    const adapter = envOf('pix-provider-adapter');
    expect(adapter.PIX_API_URL).toBe('https://psp-simulator:8443/v2');
    expect(Object.keys(adapter).filter((name) => name.startsWith('LIVE_PSP_'))).toEqual([]);
    expect(byKind(objects, 'Service').map((o) => o.metadata.name)).not.toContain('pix-provider-adapter-callbacks');
    expect(byKind(production, 'Service').map((o) => o.metadata.name)).toContain('pix-provider-adapter-callbacks');
  });

  it('asks for CPU that fits one 2-core node beside its control plane, with the limits of production', () => {
    const requests = workloads(objects).flatMap((o) => {
      const replicas = o.kind === 'Deployment' ? 2 : o.kind === 'Job' ? 1 : (o.spec!.replicas as number);
      return podOf(o).containers.map(
        (c: { resources: { requests: { cpu: string } } }) => millis(c.resources.requests.cpu) * replicas,
      );
    });
    expect(requests.reduce((a: number, b: number) => a + b, 0)).toBeLessThan(800);
    const limits = (list: K8sObject[]) =>
      byKind(list, 'Deployment').map((o) => podOf(o).containers[0].resources.limits.cpu as string);
    expect(limits(objects)).toEqual(limits(production));
  });

  it('opens the dispatcher to its webhook receiver pod alone, besides the public internet', () => {
    const config = named(objects, 'ConfigMap', 'pix-config');
    expect(config.data!.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('true');
    expect(named(production, 'ConfigMap', 'pix-config').data!.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('false');
    const dispatcher = named(objects, 'NetworkPolicy', 'webhook-dispatcher');
    expect(dispatcher.spec!.egress).toContainEqual({
      to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhook-receiver' } } }],
    });
    expect(named(objects, 'NetworkPolicy', 'webhook-receiver').spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhook-receiver' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [{ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'webhook-dispatcher' } } }] }],
    });
  });
});
