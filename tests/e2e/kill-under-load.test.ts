import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError, SandboxRpc, Streams, Subjects } from '@pix/contracts';
import { callRpc, connectNats } from '@pix/messaging';
import { createLogger } from '@pix/observability';
import { startNats, stopPid, type Started } from '@pix/devstack';
import { createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { streamMessages } from '../support/streams';
import { WebhookReceiver } from '../support/webhook-receiver';

const PAYMENTS = 40;
const LOAD_DEADLINE_MS = 90_000;

/**
 * kill -9 of payments (twice) and of NATS while a merchant creates payments (each with an
 * Idempotency-Key, retried with the same key on network errors and 5xx, as the spec tells clients)
 * and customers pay them: afterwards every payment exists once, is approved, has exactly one
 * payment.created and one payment.status_changed on the PAYMENTS stream, and its merchant received
 * both webhooks, each event under one webhook-id.
 */
describe('kill -9 under load', () => {
  let stack: PrivateStack;
  let restartedNats: Started | undefined;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    stack = await startPrivateStack();
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
    if (restartedNats) await stopPid(restartedNats.pid);
  });

  // Bounded: the load gives up after LOAD_DEADLINE_MS, convergence after a minute more.
  it('loses no payment, transition or event, and does none twice', async () => {
    const webhookUrl = await receiver.start();
    const store = await createStore(stack.natsUrl, 'Faults store');
    const nc = await connectNats(stack.natsUrl, 'fault-test', createLogger('fault-test', 'silent'));
    const giveUpAt = Date.now() + LOAD_DEADLINE_MS;

    async function until<T>(attempt: () => Promise<T | undefined>): Promise<T> {
      for (;;) {
        const value = await attempt().catch(() => undefined);
        if (value !== undefined) return value;
        if (Date.now() > giveUpAt) throw new Error('gave up under load');
        await sleep(200);
      }
    }

    async function createAndPay(i: number): Promise<string> {
      const created = await until(async () => {
        const res = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
          token: store.token,
          body: { amount: 10 + i / 100, webhookUrl },
          headers: { 'idempotency-key': `fault-${i}` },
        });
        if (res.status >= 500) return undefined;
        expect(res.status).toBe(200);
        return res.body.id;
      });
      await until(async () => {
        try {
          await callRpc(nc, SandboxRpc.pay, { paymentId: created }, 3000);
        } catch (err) {
          // An earlier try whose answer was lost already paid the charge.
          if (err instanceof DomainError && err.code === 'charge_paid_otherwise') return true;
          throw err;
        }
        return true;
      });
      return created;
    }

    const load = Promise.all(
      Array.from({ length: PAYMENTS }, async (_, i) => {
        await sleep(i * 100);
        return createAndPay(i);
      }),
    );
    const killAndRestart = async (name: 'payments') => {
      const [proc] = stack.processesOf(name).slice(-1);
      await stack.stopProcess(proc!, 'SIGKILL');
      await stack.startService(name, {}, stack.ports.ops[name]);
    };
    await sleep(800);
    await killAndRestart('payments');
    await sleep(500);
    const nats = stack.processes.find((p) => p.name === 'nats-server');
    process.kill(nats!.pid, 'SIGKILL');
    await stopPid(nats!.pid);
    await sleep(1000);
    restartedNats = await startNats(stack.dir, Number(new URL(stack.natsUrl).port), false);
    await sleep(1500);
    await killAndRestart('payments');

    const ids = await load;
    await nc.close();
    expect(new Set(ids).size).toBe(PAYMENTS);

    for (const id of ids) {
      await eventually(
        async () =>
          (
            await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, {
              token: store.token,
            })
          ).body.status,
        (status) => status === 'approved',
        60_000,
        250,
      );
    }
    const listed = await api<{ total: number }>(stack.gatewayUrl, 'GET', '/public-api/v1/payments?limit=1', {
      token: store.token,
    });
    expect(listed.body.total).toBe(PAYMENTS);

    const events = [
      ...(await streamMessages<{ eventId: string; body: { id: string } }>(
        stack.natsUrl,
        Streams.payments.name,
        Subjects.paymentEvent('created'),
      )),
      ...(await streamMessages<{ eventId: string; body: { id: string } }>(
        stack.natsUrl,
        Streams.payments.name,
        Subjects.paymentEvent('status_changed'),
      )),
    ];
    for (const id of ids) {
      const mine = events.filter((e) => e.data.body.id === id);
      expect(mine).toHaveLength(2);
      expect(mine.every((e) => e.msgId === e.data.eventId)).toBe(true);
    }

    // Every event reached the merchant, each under one webhook-id, created before status_changed.
    await eventually(
      async () => ids.every((id) => receiver.events(id, 'payment.status_changed').length > 0),
      Boolean,
      60_000,
      250,
    );
    for (const id of ids) {
      const hooks = receiver.events(id);
      const byEvent = new Map<string, Set<string>>();
      for (const hook of hooks) {
        const set = byEvent.get(String(hook.json.event)) ?? new Set();
        set.add(String(hook.headers['webhook-id']));
        byEvent.set(String(hook.json.event), set);
      }
      expect(byEvent.get('payment.created')?.size).toBe(1);
      expect(byEvent.get('payment.status_changed')?.size).toBe(1);
      const firstChange = hooks.findIndex((h) => h.json.event === 'payment.status_changed');
      expect(hooks.findIndex((h) => h.json.event === 'payment.created')).toBeLessThan(firstChange);
    }
  }, 240_000);
});
