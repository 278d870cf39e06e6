import { jetStreamAdmin } from '../support/streams';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ServiceName } from '@pix/devstack';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * SIGTERM under load, as Kubernetes sends it on every rollout: the service stops taking work,
 * finishes or hands back what it holds, and exits 0 within its grace period; nothing accepted is
 * lost, no event is published twice, every event is delivered.
 */
describe('graceful shutdown under load', () => {
  const receiver = new WebhookReceiver();
  let stack: PrivateStack;
  let nc: NatsConnection;
  let store: StoreCredentials;
  let webhookUrl: string;

  beforeAll(async () => {
    webhookUrl = await receiver.start();
    stack = await startPrivateStack({
      // Failed deliveries come back quickly, so a lost one would show within the test.
      // A short grace: a service that works through its backlog instead of handing it back exceeds it.
      // Few slots per endpoint, so that a slow merchant's webhooks wait for them and have a backlog.
      env: {
        WEBHOOK_RETRY_SCHEDULE: '0s,500ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s',
        SHUTDOWN_GRACE: '5s',
        WEBHOOK_ENDPOINT_CONCURRENCY: '8',
      },
    });
    nc = await jetStreamAdmin(stack);
    store = await createStore(stack, 'Shutdown store');
  });

  afterAll(async () => {
    await nc?.close();
    await stack.stop();
    await receiver.stop();
  });

  /** SIGTERMs a running service, waits for its exit and returns the exit code. */
  async function terminate(name: ServiceName): Promise<number | null> {
    const proc = stack.processesOf(name).find((p) => p.child?.exitCode === null && p.child.signalCode === null)!;
    const exited = new Promise<number | null>((resolve) => proc.child!.once('exit', (code) => resolve(code)));
    proc.child!.kill('SIGTERM');
    return exited;
  }

  async function restart(name: ServiceName): Promise<void> {
    await stack.startService(name, {}, stack.ports.ops[name]);
  }

  /** The payment.created events in the PAYMENTS stream, by payment id. */
  async function createdEventsByPayment(): Promise<Map<string, number>> {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info('PAYMENTS');
    const counts = new Map<string, number>();
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const msg = await jsm.streams.getMessage('PAYMENTS', { seq });
      const event = msg!.json<{ body: { id: string; event: string } }>();
      if (event.body.event === 'payment.created') counts.set(event.body.id, (counts.get(event.body.id) ?? 0) + 1);
    }
    return counts;
  }

  function createPayment() {
    return api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 10, email: 'cliente@example.com', webhookUrl },
    });
  }

  /** Webhook ids received per payment for payment.created: one event, so one id, however many attempts. */
  function createdWebhookIds(paymentId: string): Set<string> {
    return new Set(receiver.events(paymentId, 'payment.created').map((hook) => String(hook.headers['webhook-id'])));
  }

  it('loses no payment and no event when payments is restarted during concurrent creates', async () => {
    const outcomes: { status: number; id?: string }[] = [];
    let loading = true;
    const workers = Array.from({ length: 6 }, async () => {
      while (loading) {
        const res = await createPayment();
        outcomes.push({ status: res.status, id: res.status === 200 ? res.body.id : undefined });
      }
    });

    await eventually(
      async () => outcomes.length,
      (n) => n >= 30,
      20_000,
    );
    const exitCode = await terminate('payments');
    const createdBeforeRestart = outcomes.length;
    await restart('payments');
    await eventually(
      async () => outcomes.length,
      (n) => n >= createdBeforeRestart + 30,
      20_000,
    );
    loading = false;
    await Promise.all(workers);

    expect(exitCode).toBe(0);
    // While payments is away the gateway says so (503); it never fails otherwise or hangs.
    expect(outcomes.filter((o) => o.status !== 200 && o.status !== 503)).toEqual([]);
    const createdIds = outcomes.flatMap((o) => (o.id ? [o.id] : []));
    for (const id of createdIds) {
      const read = await api(stack.gatewayUrl, 'GET', `/api-public/payments/${id}`, { token: store.token });
      expect(read.status).toBe(200);
    }
    // Every stored payment's created event is published once (including any whose answer was a 503)...
    const events = await eventually(
      () => createdEventsByPayment(),
      (counts) => createdIds.every((id) => counts.has(id)),
      20_000,
    );
    for (const [id, count] of events) expect({ id, count }).toEqual({ id, count: 1 });
    // ...and delivered.
    await eventually(
      async () => [...events.keys()].filter((id) => createdWebhookIds(id).size === 0),
      (missing) => missing.length === 0,
      20_000,
    );
    for (const id of events.keys()) expect(createdWebhookIds(id).size).toBe(1);
  }, 120_000);

  it('hands back undelivered webhooks when the dispatcher stops mid-delivery, and delivers them after', async () => {
    // A slow merchant: every delivery is in flight for a second, and the backlog is longer than the grace.
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), 1000));
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await createPayment();
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    await eventually(
      async () => ids.filter((id) => createdWebhookIds(id).size > 0).length,
      (n) => n >= 2,
      20_000,
    );
    const exitCode = await terminate('webhook-dispatcher');
    const deliveredBeforeRestart = ids.filter((id) => createdWebhookIds(id).size > 0).length;
    expect(exitCode).toBe(0);
    expect(deliveredBeforeRestart).toBeLessThan(ids.length);
    receiver.respond = () => 200;

    await restart('webhook-dispatcher');
    // Messages the dispatcher had buffered are handed back at once; one still on the wire when it
    // stopped pulling reaches nobody and JetStream redelivers it after the consumer's ack_wait (30 s).
    await eventually(
      async () => ids.filter((id) => createdWebhookIds(id).size === 0),
      (missing) => missing.length === 0,
      45_000,
    );
    for (const id of ids) expect(createdWebhookIds(id).size).toBe(1);
  }, 120_000);
  it('stops the gateway promptly while keep-alive clients keep it busy, answering all it took', async () => {
    // Keep-alive connections busy with requests: a plain server.close() waits for them to hang up,
    // and the gateway ran into its grace period instead of exiting.
    const statuses: number[] = [];
    let stop = false;
    const client = async () => {
      while (!stop) {
        try {
          const res = await fetch(`${stack.gatewayUrl}/public-api/v1/payments?limit=5`, {
            headers: { authorization: `Bearer ${store.token}` },
          });
          statuses.push(res.status);
          await res.arrayBuffer();
        } catch {
          // refused once the gateway has gone: nobody else serves here
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await eventually(
      async () => statuses.length,
      (n) => n >= 20,
    );
    const exitCode = await terminate('gateway');
    stop = true;
    await Promise.all(clients);
    expect(exitCode).toBe(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await restart('gateway');
  }, 60_000);
});
