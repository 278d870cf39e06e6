import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, natsAuthorizationFile, natsCredentials, ROOT } from '@pix/devstack';
import { Webhook } from 'standardwebhooks';
import { api, eventually } from '../support/api';
import { makeTestPki, type TestPki } from '../support/certificates';
import { factPairAs } from '../support/fact-keys';

/**
 * `make compose-test`: the compose stack as a developer starts it, from the images `make images`
 * built (the local engine and nats-server in place of the registry's mongo and nats), run as the
 * manifests run them (user 1000, read-only root, no capabilities). The README's walkthrough against
 * it, then the webhook dispatcher killed with kill -9 while it owes webhooks, brought back by its
 * restart policy, with nothing lost or sent twice. It runs with a deployment's credentials
 * (tests/compose/docker-compose.test.yml): NATS over TLS admitting each identity by its own nkey with
 * its own permissions, and the gateway's sealing and session keys given to it.
 * scripts/compose-test.sh runs podman's Docker API for docker-compose and the health checks
 * podman does not run by itself, then this file; it takes the stack down however this ends.
 */
/**
 * The compose project and its files, as scripts/compose-test.sh names them for docker-compose
 * (COMPOSE_PROJECT_NAME, COMPOSE_FILE), which also takes the project down after a crash of this run.
 */
const PROJECT = process.env.COMPOSE_PROJECT_NAME;
if (!PROJECT || !process.env.COMPOSE_FILE) throw new Error('run through `make compose-test` (scripts/compose-test.sh)');
/** The platform's services and the PSP simulator the adapter speaks API Pix to in test mode. */
const APP_SERVICES = ['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher', 'psp-simulator'] as const;
const WEBHOOK_URL = 'http://webhook-receiver:9999/hooks';
/** From `up` to every service healthy; a cold start here took about 20 s. */
const HEALTHY_WITHIN_MS = 120_000;
/** The images' user, who must be able to read the secrets mounted into its containers. */
const CONTAINER_UID = 1000;

/**
 * This run's secrets under one folder: an nkey seed per NATS identity and the server's
 * authorization (as `make up` makes them), a CA with NATS's certificate for the name `nats`, and
 * the PSP connection's certificates as scripts/compose-secrets.sh makes them (psp-pki).
 * Readable by the containers' user only.
 */
function writeSecrets(): { dir: string; pki: TestPki } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-compose-secrets-'));
  natsCredentials(dir);
  natsAuthorizationFile(dir);
  const pki = makeTestPki(['nats']);
  fs.mkdirSync(path.join(dir, 'tls'));
  fs.copyFileSync(pki.files.ca, path.join(dir, 'tls', 'ca.crt'));
  fs.copyFileSync(pki.files.serverCert, path.join(dir, 'tls', 'server.crt'));
  fs.copyFileSync(pki.files.serverKey, path.join(dir, 'tls', 'server.key'));
  run('bash', [path.join(ROOT, 'scripts', 'compose-psp-pki.sh'), path.join(dir, 'psp-pki')], process.env);
  const own = (file: string) => {
    fs.chownSync(file, CONTAINER_UID, CONTAINER_UID);
    if (fs.statSync(file).isDirectory()) for (const entry of fs.readdirSync(file)) own(path.join(file, entry));
    else fs.chmodSync(file, 0o400);
  };
  own(dir);
  return { dir, pki };
}

/**
 * A node script printing how long the container takes to look a name up (argv[1]), or `failed`; it
 * gives up after 3 s itself, so a lookup hung in the resolver is an answer too.
 */
const LOOKUP_MS =
  "const t = Date.now(); setTimeout(() => { process.stdout.write('failed'); process.exit(0); }, 3000).unref(); require('dns').lookup(process.argv[1], (e) => { process.stdout.write(e ? 'failed' : String(Date.now() - t)); process.exit(0); })";

/** A node script printing the first line NATS sends on connecting to nats:4222. */
const FIRST_LINE_OF_NATS =
  "require('net').connect(4222, 'nats').once('data', (d) => { process.stdout.write(d.toString().split('\\r\\n')[0]); process.exit(0); })";

interface Delivery {
  method: string;
  headers: Record<string, string>;
  body: string;
}
interface Hook extends Delivery {
  json: { event: string; id: string };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): string {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', timeout: timeoutMs });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stderr}`);
  }
  return result.stdout;
}

describe('the compose stack from the local images', () => {
  let env: NodeJS.ProcessEnv;
  let secrets: { dir: string; pki: TestPki } | undefined;
  let gatewayUrl: string;
  let receiverUrl: string;
  const compose = (args: string[], timeoutMs?: number) =>
    run('docker-compose', ['--project-directory', ROOT, ...args], env, timeoutMs);
  const container = (service: string) => `${PROJECT}_${service}_1`;
  const inspect = (service: string, format: string) =>
    run('podman', ['inspect', '-f', format, container(service)], env).trim();

  async function allHealthy(): Promise<void> {
    await eventually(
      async () => APP_SERVICES.map((s) => `${s}: ${inspect(s, '{{.State.Health.Status}}')}`),
      (states) => states.every((s) => s.endsWith(': healthy')),
      HEALTHY_WITHIN_MS,
      1_000,
    );
  }

  /**
   * Waits until the compose network's names resolve again. podman 4.3's aardvark-dns (Debian 12's,
   * as on CI) rebuilds its servers each time a container joins or leaves the network, and now and
   * then answers nothing for the next 8 s (docs/deploy.md, Podman on a machine like CI). A lookup
   * caught in that window hangs in glibc's resolver for 10 to 30 s. This test's own containers (the
   * admin CLI, the NATS probe) join and leave, and the PSP's first callback into the adapter opens a
   * connection: in one CI run it met an outage, and a pay answered 503 for 37 s.
   */
  async function namesResolve(): Promise<void> {
    const lookup = () =>
      spawnSync('podman', ['exec', container('psp-simulator'), 'node', '-e', LOOKUP_MS, 'pix-provider-adapter'], {
        env,
        encoding: 'utf8',
        timeout: 10_000,
      }).stdout;
    await eventually(
      async () => [lookup(), lookup()],
      (answers) => answers.every((ms) => /^\d+$/.test(ms) && Number(ms) < 1000),
      60_000,
      500,
    );
  }

  async function deliveries(paymentId: string): Promise<Hook[]> {
    const res = await fetch(`${receiverUrl}/deliveries`);
    const all = (await res.json()) as Delivery[];
    return all.map((d) => ({ ...d, json: JSON.parse(d.body) as Hook['json'] })).filter((d) => d.json.id === paymentId);
  }

  /** A store made with the admin container; returns once the network's names resolve again (namesResolve). */
  async function createStore(name: string): Promise<{ token: string; webhookSecret: string }> {
    const out = compose(['run', '--rm', '-T', 'admin', 'store', 'create', '--name', name]);
    await namesResolve();
    return JSON.parse(out) as { token: string; webhookSecret: string };
  }

  beforeAll(async () => {
    const [gatewayPort, receiverPort] = [await freePort(), await freePort()];
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    receiverUrl = `http://127.0.0.1:${receiverPort}`;
    secrets = writeSecrets();
    env = {
      ...process.env,
      GATEWAY_PORT: String(gatewayPort),
      PUBLIC_BASE_URL: gatewayUrl,
      RECEIVER_PORT: String(receiverPort),
      NODE_BASE_IMAGE: 'localhost/pix/node-base:current',
      COMPOSE_SECRETS: secrets.dir,
      COMPOSE_PSP_PKI: path.join(secrets.dir, 'psp-pki'),
      PSP_CLIENT_SECRET: crypto.randomBytes(24).toString('base64url'),
      SECRETS_KEYS: `compose:${crypto.randomBytes(32).toString('base64')}`,
      DASHBOARD_SESSION_SECRET: crypto.randomBytes(32).toString('base64'),
      ...factPairAs('ADAPTER_FACT_SIGNING_KEY', 'PIX_FACTS_PUBLIC_KEYS'),
      ...factPairAs('PAYMENTS_FACT_SIGNING_KEY', 'PAYMENT_FACTS_PUBLIC_KEYS'),
    };
    compose(['down', '-v', '--remove-orphans']);
    compose(['up', '-d', '--no-build'], 300_000);
    await allHealthy();
  }, 420_000);

  /** The warnings and errors the services logged lately, which a busy service's info lines would push out of a tail. */
  const warnings = (services: string[] = []) =>
    compose(['logs', '--no-color', '--tail=300', ...services])
      .split('\n')
      .filter((line) => /"level":"(warn|error|fatal)"/.test(line))
      .join('\n');

  /** A pay, retried while it answers 503; a failure's message carries what the PSP and the adapter warned of. */
  async function pay(id: string, token: string): Promise<{ status: number }> {
    try {
      return await eventually(
        () => api(gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${id}/pay`, { token }),
        (res) => res.status !== 503,
        30_000,
        1000,
      );
    } catch (err) {
      const said = warnings(['psp-simulator', 'pix-provider-adapter']).slice(-6_000);
      throw new Error(`${(err as Error).message}\nwhat the PSP and the adapter warned of:\n${said}`);
    }
  }

  afterAll(() => {
    if (!env) return;
    // What the containers said, for a failure's diagnosis (jest prints it with the test's output).
    const tail = compose(['logs', '--no-color', '--tail=30']).slice(-8_000);
    process.stdout.write(`${warnings().slice(-12_000)}\n---\n${tail}\n`);
    compose(['down', '-v', '--remove-orphans'], 180_000);
    secrets?.pki.remove();
    if (secrets) fs.rmSync(secrets.dir, { recursive: true, force: true });
  }, 240_000);

  it('runs NATS over TLS, admitting only clients that prove an identity', () => {
    // What the server says first to any client on compose's network (its INFO line).
    const hello = run(
      'podman',
      ['run', '--rm', '--network', `${PROJECT}_default`, env.NODE_BASE_IMAGE!, 'node', '-e', FIRST_LINE_OF_NATS],
      env,
    );
    const info = JSON.parse(hello.replace(/^INFO /, '')) as { tls_required?: boolean; auth_required?: boolean };
    expect(info).toMatchObject({ tls_required: true, auth_required: true });
  });

  it('runs every service as the manifests run it', () => {
    for (const service of APP_SERVICES) {
      expect(inspect(service, '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}')).toBe('1000:1000 true');
      // The capabilities the process holds: none.
      expect(inspect(service, '{{len .EffectiveCaps}}')).toBe('0');
      expect(inspect(service, '{{.HostConfig.RestartPolicy.Name}}')).toBe('unless-stopped');
    }
  });

  it('walks the README through: store, payment, page, sandbox pay, approved, both webhooks, events', async () => {
    const store = await createStore('Compose store');
    const created = await api<Record<string, unknown>>(gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 25.5, email: 'cliente@example.com', webhookUrl: WEBHOOK_URL },
    });
    expect(created.status).toBe(200);
    const id = String(created.body.id);
    expect(created.body).toMatchObject({ status: 'pending', amount: 25.5, webhookUrl: WEBHOOK_URL });
    expect(created.body.qrCodeUrl).toBe(`${gatewayUrl}/public-api/v1/qrcodes/${id}.png`);

    const qr = await fetch(String(created.body.qrCodeUrl));
    expect(qr.headers.get('content-type')).toBe('image/png');
    const page = await fetch(`${gatewayUrl}/pay/${id}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Compose store');
    // The page's script, bundled at build time under a hashed name, is in the image.
    const script = /<script src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/\.[0-9A-Z]{8}\.js$/);
    const served = await fetch(new URL(script!, gatewayUrl));
    expect({ status: served.status, type: served.headers.get('content-type') }).toEqual({
      status: 200,
      type: expect.stringContaining('javascript'),
    });

    // A 503 (a backend slower than the gateway's wait) is retried, as the README's clients do: a pay
    // is idempotent (the charge's one Pix). The pay waits for the PSP's callback, whose first
    // connection needs the network's names (createStore waited for them: namesResolve).
    const paid = await pay(id, store.token);
    expect(paid.status).toBe(200);
    const approved = await eventually(
      () => api<Record<string, unknown>>(gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }),
      (res) => res.body.status === 'approved',
      30_000,
    );
    expect(approved.body).toEqual({ ...created.body, status: 'approved' });

    const hooks = await eventually(
      () => deliveries(id),
      (list) => list.length >= 2,
      30_000,
    );
    expect(hooks.map((h) => h.json.event)).toEqual(['payment.created', 'payment.status_changed']);
    const verifier = new Webhook(store.webhookSecret);
    for (const hook of hooks) {
      expect(() =>
        verifier.verify(hook.body, {
          'webhook-id': hook.headers['webhook-id']!,
          'webhook-timestamp': hook.headers['webhook-timestamp']!,
          'webhook-signature': hook.headers['webhook-signature']!,
        }),
      ).not.toThrow();
    }

    const events = await eventually(
      () =>
        api<{ items: { type: string; status: string }[] }>(gatewayUrl, 'GET', `/public-api/v1/events?paymentId=${id}`, {
          token: store.token,
        }),
      (res) => res.body.items?.length === 2 && res.body.items.every((e) => e.status === 'delivered'),
      30_000,
    );
    expect(events.body.items.map((e) => e.type).sort()).toEqual(['payment.created', 'payment.status_changed']);
  }, 180_000);

  it('brings the dispatcher back after kill -9, and delivers what it owed once each', async () => {
    const store = await createStore('Restart store');
    const created = await api<Record<string, unknown>>(gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 10, webhookUrl: WEBHOOK_URL },
    });
    expect(created.status).toBe(200);
    const id = String(created.body.id);
    // A 503 is retried, as in the walkthrough.
    const paid = await pay(id, store.token);
    expect(paid.status).toBe(200);

    // A crash, not a stop, while both webhooks are owed: the process is killed from outside, so the
    // restart policy applies.
    const restartsBefore = Number(inspect('webhook-dispatcher', '{{.RestartCount}}'));
    process.kill(Number(inspect('webhook-dispatcher', '{{.State.Pid}}')), 'SIGKILL');
    await eventually(
      async () => Number(inspect('webhook-dispatcher', '{{.RestartCount}}')),
      (n) => n > restartsBefore,
      30_000,
      500,
    );
    await allHealthy();

    const approved = await eventually(
      () => api<Record<string, unknown>>(gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }),
      (res) => res.body.status === 'approved',
      30_000,
    );
    expect(approved.status).toBe(200);
    await eventually(
      () => deliveries(id),
      (list) => list.length >= 2,
      60_000,
    );
    // A retry of a delivery the kill cut off would come within seconds: wait them out, then count.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const hooks = await deliveries(id);
    // Once each, in order: nothing lost to the kill, nothing delivered twice after it.
    expect(hooks.map((h) => h.json.event)).toEqual(['payment.created', 'payment.status_changed']);
  }, 240_000);
});
