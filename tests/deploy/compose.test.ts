import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { sharedStack } from '../support/stack';

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

function composeConfig(...args: string[]): Compose {
  const out = execFileSync('docker-compose', ['--project-directory', root, ...args, 'config'], {
    cwd: root,
    encoding: 'utf8',
    // The file's defaults, not whatever the developer's shell holds.
    env: { PATH: process.env.PATH },
  });
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
