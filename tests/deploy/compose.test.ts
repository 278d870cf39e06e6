import { execFileSync, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { sharedStack } from '../support/stack';
import { factPairAs } from '../support/fact-keys';

/**
 * docker-compose.yml as Docker would run it: `docker-compose config` (the Compose file validator,
 * no engine needed) resolves it, and its settings are checked against what the services accept.
 */
const root = path.join(__dirname, '..', '..');
const APP_SERVICES = ['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher'] as const;
const PSP_SIMULATOR = 'psp-simulator';
/** What the Dockerfile's runtime stage sets for every service. */
const IMAGE_ENV = { NODE_ENV: 'production', HTTP_HOST: '0.0.0.0', OPS_HOST: '0.0.0.0', OPS_PORT: '9100' };

type ComposeService = {
  build?: { args: Record<string, string> };
  image?: string;
  ports?: unknown[];
  volumes?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
};
type Compose = { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

/** The PSP connection's certificates as scripts/compose-secrets.sh makes them (once, for this file). */
const PSP_PKI = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compose-psp-pki-')), 'pki');
execFileSync('bash', [path.join(root, 'scripts', 'compose-psp-pki.sh'), PSP_PKI]);
afterAll(() => fs.rmSync(path.dirname(PSP_PKI), { recursive: true, force: true }));

/** What scripts/compose-secrets.sh writes into .env: the settings that guard a door, which have no default. */
const DOOR_SECRETS = {
  SECRETS_KEYS: `compose1:${Buffer.alloc(32, 7).toString('base64')}`,
  DASHBOARD_SESSION_SECRET: 'd'.repeat(43),
  PSP_CLIENT_SECRET: 'c'.repeat(32),
  COMPOSE_PSP_PKI: PSP_PKI,
  ...factPairAs('ADAPTER_FACT_SIGNING_KEY', 'PIX_FACTS_PUBLIC_KEYS'),
  ...factPairAs('PAYMENTS_FACT_SIGNING_KEY', 'PAYMENT_FACTS_PUBLIC_KEYS'),
};

/** An empty .env file: the compose file's own defaults, not a developer's .env. */
const NO_ENV_FILE = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compose-env-')), 'empty.env');
fs.writeFileSync(NO_ENV_FILE, '');
afterAll(() => fs.rmSync(path.dirname(NO_ENV_FILE), { recursive: true, force: true }));

function composeConfig(...args: string[]): Compose {
  return composeConfigWith(DOOR_SECRETS, ...args);
}

function composeConfigWith(secrets: Record<string, string>, ...args: string[]): Compose {
  const out = execFileSync(
    'docker-compose',
    ['--project-directory', root, '--env-file', NO_ENV_FILE, ...args, 'config'],
    {
      cwd: root,
      encoding: 'utf8',
      // The file's defaults and the door secrets, not whatever the developer's shell holds.
      env: { PATH: process.env.PATH, ...secrets },
    },
  );
  return YAML.parse(out) as Compose;
}

describe('docker-compose.yml', () => {
  const compose = composeConfig('--profile', 'observability', '--profile', 'tools');

  it('is valid, and starts only the platform unless a profile is asked for', () => {
    // docker-compose 1.29 lists every service in `config`; profiles decide what `up` starts.
    expect(Object.keys(composeConfig().services).sort()).toEqual(Object.keys(compose.services).sort());
    const byProfile = (profile: string | undefined) =>
      Object.entries(compose.services)
        .filter(([, service]) => service.profiles?.[0] === profile)
        .map(([name]) => name)
        .sort();
    expect(byProfile(undefined)).toEqual([...APP_SERVICES, PSP_SIMULATOR, 'mongodb', 'nats', 'nats-provision'].sort());
    expect(byProfile('observability')).toEqual(['jaeger', 'otel-collector', 'prometheus']);
    expect(byProfile('tools')).toEqual(['admin']);
  });

  it('runs MongoDB as a replica set and NATS with JetStream, each on a volume', () => {
    type WithVolumes = ComposeService & { command: string[]; volumes: string[] };
    const mongo = compose.services.mongodb as WithVolumes;
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(mongo.healthcheck!.test.join(' ')).toContain('rs.initiate');
    expect(mongo.volumes).toEqual(['mongodb-data:/data/db:rw']);
    const nats = compose.services.nats as WithVolumes;
    expect(nats.command).toEqual(expect.arrayContaining(['--jetstream', '--store_dir', '/data']));
    expect(nats.volumes).toEqual(['nats-data:/data:rw']);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['mongodb-data', 'nats-data']));
  });

  it.each(APP_SERVICES)(
    'builds %s from the Dockerfile and starts it once MongoDB, NATS and its streams are ready',
    (name) => {
      const service = compose.services[name]!;
      expect(service.build!.args).toEqual({ SERVICE: name });
      expect(fs.existsSync(path.join(root, 'services', name, 'src', 'main.ts'))).toBe(true);
      expect(service.depends_on).toEqual({
        mongodb: { condition: 'service_healthy' },
        nats: { condition: 'service_healthy' },
        'nats-provision': { condition: 'service_completed_successfully' },
        // The adapter registers its callback URL at the PSP simulator as it starts.
        ...(name === 'pix-provider-adapter' && { [PSP_SIMULATOR]: { condition: 'service_healthy' } }),
      });
      expect(service.healthcheck!.test).toEqual(['CMD', 'node', 'healthcheck.js']);
    },
  );

  it.each(APP_SERVICES)('gives %s an environment its configuration accepts', (name) => {
    const env = { PATH: process.env.PATH, ...IMAGE_ENV, ...compose.services[name]!.environment };
    const run = spawnSync('node', ['-e', `require('./services/${name}/dist/config.js')`], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it.each([
    ['gateway', ['DASHBOARD_SESSION_SECRET', 'SECRETS_KEYS']],
    ['pix-provider-adapter', ['PIX_CLIENT_SECRET']],
  ])('has %s refuse to start without its door secrets, naming each', (name, secrets) => {
    const run = spawnSync('node', ['-e', `require('./services/${name}/dist/config.js')`], {
      cwd: root,
      env: { PATH: process.env.PATH, ...IMAGE_ENV },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    for (const secret of secrets) {
      expect(run.stderr).toContain(`${secret}: is required: a secret guarding a door has no default`);
    }
  });

  it.each(Object.keys(DOOR_SECRETS))('refuses to start without %s, naming it (no default)', (name) => {
    const env = { PATH: process.env.PATH, ...DOOR_SECRETS, [name]: undefined };
    const run = spawnSync('docker-compose', ['--project-directory', root, '--env-file', NO_ENV_FILE, 'config'], {
      cwd: root,
      encoding: 'utf8',
      env,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`run scripts/compose-secrets.sh, or set ${name}`);
  });

  it('gets its door secrets from scripts/compose-secrets.sh, which every service accepts', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-secrets-'));
    try {
      // The script writes .env beside the compose file it is run for: a copy of scripts/ here.
      fs.mkdirSync(path.join(dir, 'scripts'));
      for (const script of ['compose-secrets.sh', 'compose-psp-pki.sh']) {
        fs.copyFileSync(path.join(root, 'scripts', script), path.join(dir, 'scripts', script));
      }
      execFileSync('bash', [path.join(dir, 'scripts', 'compose-secrets.sh')], { encoding: 'utf8' });
      const envFile = path.join(dir, '.env');
      expect(fs.statSync(envFile).mode & 0o777).toBe(0o600);
      const written = Object.fromEntries(
        fs
          .readFileSync(envFile, 'utf8')
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(Object.keys(written).sort()).toEqual(Object.keys(DOOR_SECRETS).sort());
      // The PSP's certificates beside it, every key readable by its owner alone.
      expect(written.COMPOSE_PSP_PKI).toBe(path.join(dir, '.run', 'compose-psp-pki'));
      const keys = fs.readdirSync(written.COMPOSE_PSP_PKI!).filter((file) => file.endsWith('.key'));
      expect(keys.length).toBe(6);
      for (const key of keys) expect(fs.statSync(path.join(written.COMPOSE_PSP_PKI!, key)).mode & 0o777).toBe(0o600);
      const before = fs.readFileSync(envFile, 'utf8');
      execFileSync('bash', [path.join(dir, 'scripts', 'compose-secrets.sh')], { encoding: 'utf8' });
      expect(fs.readFileSync(envFile, 'utf8')).toBe(before);
      const rendered = composeConfigWith(written);
      for (const name of [...APP_SERVICES, PSP_SIMULATOR]) {
        const run = spawnSync('node', ['-e', `require('./services/${name}/dist/config.js')`], {
          cwd: root,
          env: { PATH: process.env.PATH, ...IMAGE_ENV, ...rendered.services[name]!.environment },
          encoding: 'utf8',
        });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has a health check that passes on a ready service and fails on a missing one', () => {
    // The script the images hold as healthcheck.js (scripts/image-bundle.sh).
    const script = path.join(root, 'scripts', 'image-healthcheck.js');
    const opsPort = new URL(sharedStack().opsUrls.gateway).port;
    const healthy = spawnSync('node', [script], { env: { PATH: process.env.PATH, OPS_PORT: opsPort } });
    expect(healthy.status).toBe(0);
    const missing = spawnSync('node', [script], { env: { PATH: process.env.PATH, OPS_PORT: '9' } });
    expect(missing.status).toBe(1);
  });

  describe('the PSP simulator and the adapter it serves', () => {
    const simulator = compose.services[PSP_SIMULATOR]!;
    const adapter = compose.services['pix-provider-adapter']!;
    const simulatorEnv = simulator.environment!;
    const adapterEnv = adapter.environment!;
    /** The host file a service's container reads at `target` (its bind mount). */
    const mounted = (service: ComposeService, target: string): string => {
      const volume = service.volumes!.find((v) => v.split(':')[1] === target);
      if (!volume) throw new Error(`nothing mounted at ${target}`);
      return volume.split(':')[0]!;
    };
    const cert = (service: ComposeService, target: string) =>
      new X509Certificate(fs.readFileSync(mounted(service, target)));

    it('runs the simulator from its image, on its own database, once MongoDB is ready, published nowhere', () => {
      expect(simulator.build!.args).toEqual({ SERVICE: PSP_SIMULATOR });
      expect(simulator.image).toBe('pix/psp-simulator:dev');
      expect(fs.readFileSync(path.join(root, 'scripts', 'images.sh'), 'utf8')).toMatch(
        /^SERVICES=\(.*\bpsp-simulator\b.*\)$/m,
      );
      expect(simulator.depends_on).toEqual({ mongodb: { condition: 'service_healthy' } });
      expect(simulator.healthcheck!.test).toEqual(['CMD', 'node', 'healthcheck.js']);
      expect(simulator.ports).toBeUndefined();
      expect(simulatorEnv).toMatchObject({ API_HOST: '0.0.0.0', BACKOFFICE_HOST: '0.0.0.0' });
      // Its books are its own, under the local engine too (docker-compose.local.yml).
      const local = composeConfig('-f', 'docker-compose.yml', '-f', 'docker-compose.local.yml');
      for (const rendered of [compose, local]) {
        const database = (url: string) => new URL(url).pathname;
        expect(database(rendered.services[PSP_SIMULATOR]!.environment!.MONGO_URL!)).toBe('/pix_psp');
        expect(database(rendered.services.payments!.environment!.MONGO_URL!)).toBe('/pix');
      }
    });

    it('gives the simulator an environment its configuration accepts', () => {
      const run = spawnSync('node', ['-e', `require('./services/${PSP_SIMULATOR}/dist/config.js')`], {
        cwd: root,
        env: { PATH: process.env.PATH, ...IMAGE_ENV, ...simulatorEnv },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    });

    it('points the adapter at the simulator: API Pix, its back office, one OAuth2 client', () => {
      expect(adapterEnv).toMatchObject({
        PIX_API_URL: 'https://psp-simulator:8443/v2',
        PIX_OAUTH_URL: 'https://psp-simulator:8443/oauth/token',
        PSP_BACKOFFICE_URL: 'http://psp-simulator:8082',
        PIX_CALLBACK_URL: 'https://pix-provider-adapter:8081/psp/callbacks',
        PIX_CLIENT_ID: simulatorEnv.OAUTH_CLIENT_ID,
        PIX_CLIENT_SECRET: DOOR_SECRETS.PSP_CLIENT_SECRET,
      });
      expect(simulatorEnv.OAUTH_CLIENT_SECRET).toBe(DOOR_SECRETS.PSP_CLIENT_SECRET);
      // Test mode only, and no mode named: no live connection, no PIX_PROVIDER.
      expect(Object.keys(adapterEnv).filter((name) => /^LIVE_PSP_|^PIX_PROVIDER$/.test(name))).toEqual([]);
      const run = spawnSync('node', ['-e', `require('./services/pix-provider-adapter/dist/config.js')`], {
        cwd: root,
        env: { PATH: process.env.PATH, ...IMAGE_ENV, ...adapterEnv },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    });

    it('mounts certificates that make mutual TLS both ways, and no container a key not its own', () => {
      // API Pix: the simulator's certificate is for its name and the adapter's CA file trusts it;
      // the adapter's client certificate is one the simulator's client CA signed.
      const pspServer = cert(simulator, simulatorEnv.TLS_CERT_FILE!);
      expect(pspServer.checkHost('psp-simulator')).toBe('psp-simulator');
      expect(pspServer.verify(cert(adapter, adapterEnv.PIX_TLS_CA_FILE!).publicKey)).toBe(true);
      const adapterClient = cert(adapter, adapterEnv.PIX_TLS_CERT_FILE!);
      expect(adapterClient.verify(cert(simulator, simulatorEnv.TLS_CLIENT_CA_FILE!).publicKey)).toBe(true);
      // Callbacks: the adapter's callback server is for its name and the simulator trusts its CA;
      // the simulator's callback certificate is signed by the CA the adapter admits, and pinned.
      const callbackServer = cert(adapter, adapterEnv.CALLBACK_TLS_CERT_FILE!);
      expect(callbackServer.checkHost('pix-provider-adapter')).toBe('pix-provider-adapter');
      expect(callbackServer.verify(cert(simulator, simulatorEnv.CALLBACK_CA_FILE!).publicKey)).toBe(true);
      const callbackClient = cert(simulator, simulatorEnv.CALLBACK_TLS_CERT_FILE!);
      expect(callbackClient.verify(cert(adapter, adapterEnv.CALLBACK_CLIENT_CA_FILE!).publicKey)).toBe(true);
      expect(adapterEnv.PSP_CALLBACK_PINS).toBe(`cn:${/CN=(.+)/.exec(callbackClient.subject)![1]}`);
      expect(adapterClient.subject).not.toBe(callbackClient.subject);

      const keysOf = (service: ComposeService) =>
        service.volumes!.map((v) => path.basename(v.split(':')[0]!)).filter((file) => file.endsWith('.key'));
      expect(keysOf(adapter).sort()).toEqual(['adapter-callback-server.key', 'adapter-client.key']);
      expect(keysOf(simulator).sort()).toEqual(['psp-callback-client.key', 'psp-server.key']);
      for (const service of [adapter, simulator]) expect(service.volumes!.every((v) => v.endsWith(':ro'))).toBe(true);
    });
  });

  it('lets the webhook-dispatcher reach a receiver on the developer machine', () => {
    const dispatcher = compose.services['webhook-dispatcher'] as ComposeService & { extra_hosts: string[] };
    expect(dispatcher.environment!.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('true');
    expect(dispatcher.extra_hosts).toEqual(['host.docker.internal:host-gateway']);
  });

  it('provisions JetStream with the admin CLI once NATS is healthy, before any service', () => {
    const provision = compose.services['nats-provision'] as ComposeService & { entrypoint: string[] };
    expect(provision.build!.args).toEqual({ SERVICE: 'admin' });
    expect(provision.entrypoint).toEqual(['node', 'main.js', 'nats', 'provision']);
    expect(provision.depends_on).toEqual({ nats: { condition: 'service_healthy' } });
  });

  it('runs the admin CLI on demand, once the services it talks to are healthy', () => {
    const admin = compose.services.admin!;
    expect(admin.profiles).toEqual(['tools']);
    expect(admin.build!.args).toEqual({ SERVICE: 'admin' });
    expect((admin as ComposeService & { entrypoint: string[] }).entrypoint).toEqual(['node', 'main.js']);
    expect(fs.existsSync(path.join(root, 'tools', 'admin', 'src', 'main.ts'))).toBe(true);
    expect(Object.keys(admin.depends_on!)).toEqual(expect.arrayContaining(['gateway', 'payments']));
  });
});

describe('observability profile', () => {
  it('has a Prometheus configuration that promtool accepts, scraping every service', () => {
    const file = path.join(root, 'deploy', 'prometheus.yml');
    const check = spawnSync('promtool', ['check', 'config', '--syntax-only', file], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toContain('SUCCESS');
    expect(check.status).toBe(0);
    const config = YAML.parse(fs.readFileSync(file, 'utf8')) as {
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    const targets = config.scrape_configs.flatMap((job) => job.static_configs.flatMap((s) => s.targets));
    expect(targets).toEqual(expect.arrayContaining([...APP_SERVICES, PSP_SIMULATOR].map((name) => `${name}:9100`)));
  });

  it('has a collector whose pipelines use only components it defines, exporting to Jaeger', () => {
    // No collector binary is available here: this checks the structure the collector validates first.
    const config = YAML.parse(fs.readFileSync(path.join(root, 'deploy', 'otel-collector.yaml'), 'utf8')) as Record<
      string,
      Record<string, unknown>
    > & { service: { pipelines: Record<string, Record<string, string[]>> } };
    for (const pipeline of Object.values(config.service.pipelines)) {
      for (const kind of ['receivers', 'processors', 'exporters']) {
        for (const component of pipeline[kind] ?? []) expect(Object.keys(config[kind]!)).toContain(component);
      }
    }
    expect(config.exporters!['otlp/jaeger']).toMatchObject({ endpoint: 'jaeger:4317' });
  });
});
