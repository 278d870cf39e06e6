import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ROOT } from '@pix/devstack';
import { Webhook } from 'standardwebhooks';
import { api, eventually } from '../support/api';

/**
 * `make k8s-test`: the small-node profile (k8s/small-node.json) on a real one-node cluster, which
 * scripts/k8s/test.sh builds, starts and applies the manifests to before it runs this file. Through
 * the gateway's Service (from the ingress controller's namespace, as production's ingress reaches
 * it): the README's walkthrough and a refund; then a payments pod, a webhook-dispatcher pod and a
 * NATS pod deleted in turn under a small load, with nothing lost or delivered twice; then the
 * NetworkPolicies, from pods of the cluster. The test reaches the cluster's pods through the API
 * server's port-forward on loopback only.
 */
const KUBECONFIG = process.env.KUBECONFIG;
const BIN = process.env.PIX_K8S_BIN;
const NS = process.env.PIX_K8S_NAMESPACE ?? 'pix';
if (!KUBECONFIG || !BIN) throw new Error('run through `make k8s-test` (scripts/k8s/test.sh)');
const WEBHOOK_URL = 'http://webhook-receiver:9999/hooks';
const NODE_IMAGE = 'localhost/pix/node-base:current';
const ADMIN_IMAGE = 'localhost/pix/admin:dev';
/** A small load: one payment created and paid this often while a pod is deleted. */
const LOAD_INTERVAL_MS = 500;
/** How long the load runs around each deletion. */
const LOAD_MS = 20_000;

function kubectl(args: string[], input?: string, timeoutMs = 120_000): string {
  const result = spawnSync(`${BIN}/kubectl`, ['--kubeconfig', KUBECONFIG!, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (result.status !== 0) {
    throw new Error(`kubectl ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stderr}`);
  }
  return result.stdout;
}

/** `kubectl port-forward` of a Service to a free loopback port: its base URL, and the process to stop. */
async function portForward(
  namespace: string,
  target: string,
  port: number,
): Promise<{ url: string; stop: () => void }> {
  const child: ChildProcess = spawn(
    `${BIN}/kubectl`,
    ['--kubeconfig', KUBECONFIG!, '-n', namespace, 'port-forward', '--address', '127.0.0.1', target, `:${port}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const local = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`port-forward ${target} exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${local}`, stop: () => child.kill() };
}

interface StoreCredentials {
  token: string;
  webhookSecret: string;
  liveToken: string;
  liveWebhookSecret: string;
}

/** Whether a delivery's Standard Webhooks signature is the secret's. */
function signedWith(secret: string, delivery: Delivery): boolean {
  try {
    new Webhook(secret).verify(delivery.body, {
      'webhook-id': delivery.headers['webhook-id']!,
      'webhook-timestamp': delivery.headers['webhook-timestamp']!,
      'webhook-signature': delivery.headers['webhook-signature']!,
    });
    return true;
  } catch {
    return false;
  }
}

interface Delivery {
  headers: Record<string, string>;
  body: string;
}
interface Hook extends Delivery {
  json: { event: string; id?: string; paymentId?: string; data?: { id?: string; paymentId?: string } };
}

/** A pod of the Node image that stays up, to run probes from: labels decide what policies apply. */
function probePod(namespace: string, name: string, labels: Record<string, string>): void {
  kubectl([
    '-n',
    namespace,
    'run',
    name,
    `--image=${NODE_IMAGE}`,
    '--image-pull-policy=IfNotPresent',
    '--restart=Never',
    `--labels=${Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}`,
    '--command',
    '--',
    'sleep',
    '600',
  ]);
  kubectl(['-n', namespace, 'wait', '--for=condition=Ready', `pod/${name}`, '--timeout=120s'], undefined, 150_000);
}

/** From a pod: which of host:port accept a TCP connection within 3 s. */
function reachable(namespace: string, pod: string, targets: string[]): Record<string, boolean> {
  const script = `
    const net = require('net');
    const targets = ${JSON.stringify(targets)};
    Promise.all(targets.map((t) => new Promise((resolve) => {
      const [host, port] = t.split(':');
      const socket = net.connect({ host, port: Number(port), timeout: 3000 });
      socket.once('connect', () => { socket.destroy(); resolve([t, true]); });
      socket.once('timeout', () => { socket.destroy(); resolve([t, false]); });
      socket.once('error', () => resolve([t, false]));
    }))).then((r) => console.log(JSON.stringify(Object.fromEntries(r))));`;
  return JSON.parse(kubectl(['-n', namespace, 'exec', pod, '--', 'node', '-e', script])) as Record<string, boolean>;
}

describe('the small-node profile on a one-node cluster', () => {
  let gateway: { url: string; stop: () => void };
  let receiver: { url: string; stop: () => void };

  async function deliveries(paymentId: string): Promise<Hook[]> {
    const res = await patiently(() => api<Delivery[]>(receiver.url, 'GET', '/deliveries'));
    const all = res.body;
    return all
      .map((d) => ({ ...d, json: JSON.parse(d.body) as Hook['json'] }))
      .filter((d) => d.body.includes(paymentId));
  }

  /**
   * The admin CLI as the operator runs it (docs/deploy.md): a pod labelled admin, with the admin
   * seed. It prints each mode's token and webhook secret; the cluster runs test mode only.
   */
  function createStore(name: string): StoreCredentials {
    const pod = `admin-${Date.now()}`;
    const overrides = {
      spec: {
        containers: [
          {
            name: pod,
            image: ADMIN_IMAGE,
            // The image's CMD is a service's: the CLI is named, as docs/deploy.md's recipe does.
            command: ['node', 'main.js'],
            args: ['store', 'create', '--name', name],
            envFrom: [{ configMapRef: { name: 'pix-config' } }],
            env: [{ name: 'NATS_NKEY_SEED_FILE', value: '/etc/nats-identity/seed' }],
            volumeMounts: [
              { name: 'id', mountPath: '/etc/nats-identity' },
              { name: 'ca', mountPath: '/etc/nats-ca' },
            ],
          },
        ],
        volumes: [
          { name: 'id', secret: { secretName: 'pix-nats-admin' } },
          { name: 'ca', secret: { secretName: 'nats-tls', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        ],
      },
    };
    const out = kubectl(
      [
        '-n',
        NS,
        'run',
        pod,
        '--rm',
        '-i',
        '--quiet',
        '--restart=Never',
        '--labels=app.kubernetes.io/name=admin',
        `--image=${ADMIN_IMAGE}`,
        '--image-pull-policy=IfNotPresent',
        `--overrides=${JSON.stringify(overrides)}`,
      ],
      undefined,
      180_000,
    );
    return JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)) as StoreCredentials;
  }

  /** Retried on a 5xx or a dropped connection while a pod goes: the answer that counts is the last. */
  async function patiently<T>(call: () => Promise<{ status: number; body: T }>): Promise<{ status: number; body: T }> {
    let last: { status: number; body: T } | undefined;
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        last = await call();
        if (last.status < 500) return last;
      } catch {
        // the connection dropped: try again
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return last ?? { status: 0, body: undefined as T };
  }

  beforeAll(async () => {
    gateway = await portForward('ingress-nginx', 'deployment/ingress-stand-in', 8080);
    receiver = await portForward(NS, 'service/webhook-receiver', 9999);
  }, 60_000);

  afterAll(() => {
    gateway?.stop();
    receiver?.stop();
  });

  it('walks the README through the gateway Service: test token, payment, sandbox pay, approved, signed webhooks, refund', async () => {
    const store = createStore('K8s store');
    expect(store.token).toMatch(/^pxt_test_/);
    expect(store.liveToken).toMatch(/^pxt_live_/);
    const created = await api<Record<string, unknown>>(gateway.url, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 25.5, email: 'cliente@example.com', webhookUrl: WEBHOOK_URL },
    });
    expect(created.status).toBe(200);
    const id = String(created.body.id);
    expect(created.body).toMatchObject({ status: 'pending', amount: 25.5, webhookUrl: WEBHOOK_URL, livemode: false });
    expect(created.body.qrCodeUrl).toBe(`https://api.pix.test/public-api/v1/qrcodes/${id}.png`);

    // Paid as the payer would, at the PSP simulator's back office (through the adapter); its
    // callback over mutual TLS makes the payment approved.
    const paid = await api(gateway.url, 'POST', `/public-api/v1/sandbox/payments/${id}/pay`, { token: store.token });
    expect(paid.status).toBe(200);
    const approved = await eventually(
      () => api<Record<string, unknown>>(gateway.url, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }),
      (res) => res.body.status === 'approved',
      30_000,
      250,
    );
    expect(approved.body).toMatchObject({ ...created.body, status: 'approved' });

    const hooks = await eventually(
      () => deliveries(id),
      (list) => list.length >= 2,
      30_000,
      250,
    );
    expect(hooks.map((h) => h.json.event)).toEqual(['payment.created', 'payment.status_changed']);
    // Both signed with test mode's secret, none with live mode's.
    expect(hooks.map((h) => [signedWith(store.webhookSecret, h), signedWith(store.liveWebhookSecret, h)])).toEqual([
      [true, false],
      [true, false],
    ]);

    const refund = await api<Record<string, unknown>>(gateway.url, 'POST', `/public-api/v1/payments/${id}/refunds`, {
      token: store.token,
      body: { amount: 10, reason: 'Troca' },
    });
    expect(refund.status).toBe(200);
    const refunded = await eventually(
      () => api<Record<string, unknown>>(gateway.url, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }),
      (res) => res.body.refundedAmount === 10,
      30_000,
      250,
    );
    expect(refunded.body).toMatchObject({ id, refundedAmount: 10, livemode: false });
    const refundHooks = await eventually(
      () => deliveries(id),
      (list) => list.some((h) => h.json.event === 'refund.succeeded'),
      30_000,
      250,
    );
    expect(refundHooks.map((h) => h.json.event)).toEqual([
      'payment.created',
      'payment.status_changed',
      'refund.created',
      'refund.succeeded',
    ]);
    expect(refundHooks.every((h) => signedWith(store.webhookSecret, h))).toBe(true);
  }, 300_000);

  it.each([
    ['a payments pod', 'app.kubernetes.io/name=payments'],
    ['a webhook-dispatcher pod', 'app.kubernetes.io/name=webhook-dispatcher'],
    ['a NATS pod', 'app.kubernetes.io/name=nats'],
  ])(
    'loses and doubles nothing when %s is deleted under a small load',
    async (_what, selector) => {
      const store = createStore(`Load store ${selector}`);
      const ids: string[] = [];
      const failures: string[] = [];
      let running = true;
      const load = (async () => {
        while (running) {
          // One key for every try of this create: a retry after a lost answer makes no second payment.
          const key = `k8s-${ids.length}-${Date.now()}`;
          const created = await patiently(() =>
            api<Record<string, unknown>>(gateway.url, 'POST', '/public-api/v1/payments', {
              token: store.token,
              // The smallest amount the API takes (docs/api.md: 5 to 3000).
              body: { amount: 5, webhookUrl: WEBHOOK_URL },
              headers: { 'idempotency-key': key },
            }),
          );
          if (created.status !== 200) {
            failures.push(`create: ${created.status} ${JSON.stringify(created.body)}`);
          } else {
            const id = String(created.body.id);
            ids.push(id);
            const paid = await patiently(() =>
              api(gateway.url, 'POST', `/public-api/v1/sandbox/payments/${id}/pay`, { token: store.token }),
            );
            if (paid.status !== 200) failures.push(`pay ${id}: ${paid.status} ${JSON.stringify(paid.body)}`);
          }
          await new Promise((resolve) => setTimeout(resolve, LOAD_INTERVAL_MS));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS / 4));
      const pods = kubectl(['-n', NS, 'get', 'pods', '-l', selector, '-o', 'name']).trim().split('\n');
      const victim = pods[pods.length - 1]!;
      kubectl(['-n', NS, 'delete', victim, '--wait=false']);
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      running = false;
      await load;
      const kind = selector.endsWith('nats') ? 'statefulset/nats' : `deployment/${selector.split('=')[1]}`;
      kubectl(['-n', NS, 'rollout', 'status', kind, '--timeout=300s'], undefined, 320_000);

      expect(failures).toEqual([]);
      expect(ids.length).toBeGreaterThan(10);
      for (const id of ids) {
        // Through a port-forward that may drop a kept-alive connection: a GET is tried again, as a client would.
        const payment = await eventually(
          () =>
            patiently(() =>
              api<Record<string, unknown>>(gateway.url, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }),
            ),
          (res) => res.body.status === 'approved',
          60_000,
          500,
        );
        expect(payment.body.status).toBe('approved');
      }
      const all = await eventually(
        async () => Promise.all(ids.map((id) => deliveries(id))),
        (lists) => lists.every((list) => list.length >= 2),
        90_000,
        1_000,
      );
      // A retry of a delivery the deletion cut off would come within seconds: wait them out, then count.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const settled = await Promise.all(ids.map((id) => deliveries(id)));
      expect(all.length).toBe(ids.length);
      for (const list of settled) {
        expect(list.map((h) => h.json.event)).toEqual(['payment.created', 'payment.status_changed']);
      }
    },
    600_000,
  );

  describe('NetworkPolicies', () => {
    const platformPorts = [
      'nats-0.nats:4222',
      'nats-0.nats:6222',
      'nats-0.nats:8222',
      'mongodb-0.mongodb:27017',
      'gateway:8080',
      'gateway:9101',
      'payments:9102',
      'pix-provider-adapter:8081',
      'pix-provider-adapter:9103',
      'webhook-dispatcher:9104',
      'psp-simulator:8443',
      'psp-simulator:8082',
      'psp-simulator:9105',
    ];

    beforeAll(() => {
      probePod(NS, 'unlabelled', { purpose: 'k8s-test' });
      probePod(NS, 'as-admin', { 'app.kubernetes.io/name': 'admin' });
      probePod('ingress-nginx', 'as-ingress', { purpose: 'k8s-test' });
      // kube-router applies the policies a few seconds after a pod starts.
      spawnSync('sleep', ['10']);
    }, 300_000);

    afterAll(() => {
      kubectl(['-n', NS, 'delete', 'pod', 'unlabelled', 'as-admin', '--wait=false']);
      kubectl(['-n', 'ingress-nginx', 'delete', 'pod', 'as-ingress', '--wait=false']);
    });

    it('lets a pod with no platform label reach neither NATS, nor the database, nor any service port', () => {
      const result = reachable(NS, 'unlabelled', platformPorts);
      expect(result).toEqual(Object.fromEntries(platformPorts.map((t) => [t, false])));
    });

    it("admits the operator's admin pod to NATS's client port and nothing else", () => {
      const result = reachable(NS, 'as-admin', platformPorts);
      expect(result).toEqual(Object.fromEntries(platformPorts.map((t) => [t, t === 'nats-0.nats:4222'])));
    });

    it("admits the ingress controller's namespace to the gateway's HTTP port only", () => {
      const targets = platformPorts.map((t) => t.replace(':', `.${NS}:`));
      const result = reachable('ingress-nginx', 'as-ingress', targets);
      expect(result).toEqual(Object.fromEntries(targets.map((t) => [t, t === `gateway.${NS}:8080`])));
    });
  });
});
