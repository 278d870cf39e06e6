import { execFileSync, spawnSync } from 'node:child_process';
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
/** What the Dockerfile's runtime stage sets for every service. */
const IMAGE_ENV = { NODE_ENV: 'production', HTTP_HOST: '0.0.0.0', OPS_HOST: '0.0.0.0', OPS_PORT: '9100' };

type ComposeService = {
  build?: { args: Record<string, string> };
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
};
type Compose = { services: Record<string, ComposeService>; volumes: Record<string, unknown> };

/** What scripts/compose-secrets.sh writes into .env: the settings that guard a door, which have no default. */
const DOOR_SECRETS = {
  SECRETS_KEYS: `compose1:${Buffer.alloc(32, 7).toString('base64')}`,
  DASHBOARD_SESSION_SECRET: 'd'.repeat(43),
  PSP_CALLBACK_SECRET: 'p'.repeat(32),
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
    expect(byProfile(undefined)).toEqual([...APP_SERVICES, 'mongodb', 'nats', 'nats-provision'].sort());
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
    ['pix-provider-adapter', ['PSP_CALLBACK_SECRET']],
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
      fs.copyFileSync(
        path.join(root, 'scripts', 'compose-secrets.sh'),
        path.join(dir, 'scripts', 'compose-secrets.sh'),
      );
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
      const before = fs.readFileSync(envFile, 'utf8');
      execFileSync('bash', [path.join(dir, 'scripts', 'compose-secrets.sh')], { encoding: 'utf8' });
      expect(fs.readFileSync(envFile, 'utf8')).toBe(before);
      const rendered = composeConfigWith(written);
      for (const name of APP_SERVICES) {
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
    expect(targets).toEqual(expect.arrayContaining(APP_SERVICES.map((name) => `${name}:9100`)));
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
