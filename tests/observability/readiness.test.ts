import { SERVICE_NAMES, startFerretDb, startNats, stopPid, type ServiceName, type Started } from '@pix/devstack';
import { createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

interface Readiness {
  status: number;
  body: { status: string; checks: Record<string, boolean> };
}

async function readiness(opsUrl: string): Promise<Readiness> {
  const res = await fetch(`${opsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness['body'] };
}

/** The bound issue 19 sets: a replica says within 2 s that it cannot work, and that it can again. */
const READINESS_FOLLOWS_MS = 2000;

/** How long after `since` each service's /readyz first answered as `wanted` (polled every 50 ms). */
async function timesUntil(
  stack: PrivateStack,
  wanted: (r: Readiness) => boolean,
  since: number,
): Promise<Record<ServiceName, { ms: number; last: Readiness }>> {
  const one = async (service: ServiceName) => {
    const last = await eventually(() => readiness(stack.opsUrls[service]), wanted, 30_000, 50);
    return [service, { ms: Date.now() - since, last }] as const;
  };
  return Object.fromEntries(await Promise.all(SERVICE_NAMES.map(one))) as Record<
    ServiceName,
    { ms: number; last: Readiness }
  >;
}

function elapsed(times: Record<string, { ms: number }>): Record<string, number> {
  return Object.fromEntries(Object.entries(times).map(([service, { ms }]) => [service, ms]));
}

/** Every service's figure within the bound (printed, so a run shows how far inside it was). */
function expectWithin(what: string, times: Record<string, { ms: number }>): void {
  const figures = elapsed(times);
  process.stdout.write(`readiness: ${what}: ${JSON.stringify(figures)}\n`);
  expect(Object.entries(figures).filter(([, ms]) => ms > READINESS_FOLLOWS_MS)).toEqual([]);
}

/**
 * Readiness means "can do its work now": with NATS gone every service answers 503 on /readyz
 * within 2 s (liveness stays 200, so nothing restarts it), and within 2 s of NATS being back on the
 * same port and data directory each is ready again and work resumes, consumers included. The same
 * for the database (FerretDB killed, then started again).
 */
describe('readiness follows NATS and the database', () => {
  const webhooks = new WebhookReceiver();
  let stack: PrivateStack;
  let restartedNats: Started | undefined;
  let restartedFerret: Started | undefined;

  beforeAll(async () => {
    stack = await startPrivateStack();
  });
  afterAll(async () => {
    await stack?.stop();
    if (restartedNats) await stopPid(restartedNats.pid);
    if (restartedFerret) await stopPid(restartedFerret.pid);
    await webhooks.stop();
  });

  it('is ready with NATS, not ready without it, and ready again when it returns', async () => {
    const webhookUrl = await webhooks.start();
    const store = await createStore(stack, 'Readiness store');
    for (const service of SERVICE_NAMES) {
      const ready = await readiness(stack.opsUrls[service]);
      expect(ready.status).toBe(200);
      expect(Object.values(ready.body.checks).every(Boolean)).toBe(true);
    }
    expect((await readiness(stack.opsUrls.payments)).body.checks).toEqual({
      mongodb: true,
      nats: true,
      'pix consumer': true,
      'scheduled work consumer': true,
    });

    // NATS gone (kill -9: no goodbye): every service says so within 2 s; liveness stays 200.
    const nats = stack.processes.find((p) => p.name === 'nats-server');
    const killed = Date.now();
    process.kill(nats!.pid, 'SIGKILL');
    const down = await timesUntil(stack, (r) => r.status === 503 && !r.body.checks.nats, killed);
    expectWithin('not ready after NATS was killed', down);
    for (const service of SERVICE_NAMES) {
      expect(down[service].last.body.status).toBe('not_ready');
      expect((await fetch(`${stack.opsUrls[service]}/healthz`)).status).toBe(200);
    }
    expect(down['webhook-dispatcher'].last.body.checks['payments consumer']).toBe(false);

    // Back on the same port and data: ready again within 2 s of NATS taking connections.
    restartedNats = await startNats(stack.dir, Number(new URL(stack.natsUrl).port), false);
    expectWithin('ready after NATS came back', await timesUntil(stack, (r) => r.status === 200, Date.now()));

    const created = await api<{ id: string; status: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 9.9, webhookUrl },
    });
    expect(created.status).toBe(200);
    await eventually(
      async () => webhooks.events(created.body.id, 'payment.created').length,
      (n) => n === 1,
    );
  });

  it('is not ready while the database does not answer, and ready again when it does', async () => {
    const ferretdb = stack.processes.find((p) => p.name === 'ferretdb');
    const killed = Date.now();
    process.kill(ferretdb!.pid, 'SIGKILL');
    // Every service keeps state in MongoDB (the dispatcher its deliveries and their log).
    const down = await timesUntil(stack, (r) => r.status === 503 && !r.body.checks.mongodb, killed);
    expectWithin('not ready after the database was killed', down);
    for (const service of SERVICE_NAMES) {
      expect(down[service].last.body.checks).toMatchObject({ mongodb: false, nats: true });
    }

    restartedFerret = await startFerretDb(stack.dir, stack.ports.mongo, stack.ports.mongoDebug, false, stack.postgres!);
    expectWithin('ready after the database came back', await timesUntil(stack, (r) => r.status === 200, Date.now()));
  });
});
