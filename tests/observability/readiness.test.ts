import { SERVICE_NAMES, startNats, stopPid, type Started } from '@pix/devstack';
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

/**
 * Readiness means "can do its work now": with NATS gone every service answers 503 on /readyz
 * (liveness stays 200, so nothing restarts it), and once NATS is back on the same port and data
 * directory each is ready again and work resumes, consumers included. The database is asked too.
 */
describe('readiness follows NATS and the database', () => {
  const webhooks = new WebhookReceiver();
  let stack: PrivateStack;
  let restartedNats: Started | undefined;

  beforeAll(async () => {
    stack = await startPrivateStack();
  });
  afterAll(async () => {
    await stack?.stop();
    if (restartedNats) await stopPid(restartedNats.pid);
    await webhooks.stop();
  });

  it('is ready with NATS, not ready without it, and ready again when it returns', async () => {
    const webhookUrl = await webhooks.start();
    const store = await createStore(stack.natsUrl, 'Readiness store');
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

    const nats = stack.processes.find((p) => p.name === 'nats-server');
    await stopPid(nats!.pid);
    for (const service of SERVICE_NAMES) {
      const down = await eventually(
        () => readiness(stack.opsUrls[service]),
        (r) => r.status === 503,
      );
      expect(down.body).toMatchObject({ status: 'not_ready', checks: { nats: false } });
      expect((await fetch(`${stack.opsUrls[service]}/healthz`)).status).toBe(200);
    }
    expect((await readiness(stack.opsUrls['webhook-dispatcher'])).body.checks['payments consumer']).toBe(false);

    restartedNats = await startNats(stack.dir, Number(new URL(stack.natsUrl).port), false);
    for (const service of SERVICE_NAMES) {
      await eventually(
        () => readiness(stack.opsUrls[service]),
        (r) => r.status === 200,
        30_000,
      );
    }

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

  it('is not ready while the database does not answer', async () => {
    const ferretdb = stack.processes.find((p) => p.name === 'ferretdb');
    await stopPid(ferretdb!.pid);
    // Every service keeps state in MongoDB (the dispatcher its deliveries and their log).
    for (const service of ['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher'] as const) {
      const down = await eventually(
        () => readiness(stack.opsUrls[service]),
        (r) => r.status === 503,
      );
      expect(down.body.checks).toMatchObject({ mongodb: false, nats: true });
    }
  });
});
