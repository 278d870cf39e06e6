import { jetstreamManager } from '@nats-io/jetstream';
import { accountOf, ErrorMessages, PaymentViewsBucket } from '@pix/contracts';
import { connectAs } from '@pix/devstack';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandsBetween, settledCounts } from '../support/db-commands';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

interface Payment {
  id: string;
  status: string;
  livemode: boolean;
  storeId: string;
  qrCopyPaste: string | null;
}

/** A counter's total in a service's /metrics over the samples whose labels include `labels` (every outcome's). */
async function sample(opsUrl: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) && line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/**
 * Gets answered from payments' read model (docs/decisions/payment-read-model.md), on a stack of the
 * test's own (its database commands and NATS requests are counted, and its services restarted):
 * every get right after the answer that made a change shows that change, from the view, with no
 * database command and no request to payments; a payment with no view is read from the database;
 * another store's or mode's id is 404 either way; restarts keep the views right.
 */
describe('payment gets from the read model', () => {
  let stack: PrivateStack;
  let store: StoreCredentials;
  const receiver = new WebhookReceiver();
  let webhookUrl: string;

  beforeAll(async () => {
    // No background pass reads the database during a measurement (command-budget.test.ts does the same).
    stack = await startPrivateStack({
      env: { OUTBOX_RELAY_INTERVAL: '1h', WEBHOOK_STALL_SWEEP_INTERVAL: '1h', RECONCILE_INTERVAL: '1h' },
    });
    webhookUrl = await receiver.start();
    store = await createStore(stack, 'Read model store');
  }, 120_000);
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  const create = async (token = store.token, body: Record<string, unknown> = { amount: 12.5 }) => {
    const res = await api<Payment>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', { token, body });
    expect(res.status).toBe(200);
    return res.body;
  };
  const get = (id: string, token = store.token) =>
    api<Payment | { message: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, { token });
  const gateway = () => stack.opsUrls.gateway;
  const reads = (outcome: string) => sample(gateway(), 'payment_view_reads_total', `outcome="${outcome}"`);
  const paymentsGets = () => sample(gateway(), 'nats_request_duration_seconds_count', 'subject="payments.get"');
  /** Messages the gateway's connections have published so far (NATS's monitoring: /connz, their in_msgs). */
  const gatewayPublished = async () => {
    const url = `http://127.0.0.1:${stack.ports.natsMonitor}/connz?acc=${accountOf('gateway')}&limit=1000`;
    const { connections = [] } = (await (await fetch(url)).json()) as { connections?: { in_msgs: number }[] };
    return connections.reduce((sum, connection) => sum + connection.in_msgs, 0);
  };
  /** A get's cost: the database commands of every service, the gateway's requests to payments and its messages on NATS. */
  const costOf = async (id: string) => {
    const before = await settledCounts(stack);
    const [asked, published] = [await paymentsGets(), await gatewayPublished()];
    expect((await get(id)).status).toBe(200);
    const commands = commandsBetween(before, await settledCounts(stack));
    return {
      commands: [...commands],
      paymentsGets: (await paymentsGets()) - asked,
      natsMessages: (await gatewayPublished()) - published,
    };
  };

  it("answers a get right after a create's answer with that payment, from its view", async () => {
    const hitsBefore = await reads('hit');
    for (let round = 0; round < 10; round++) {
      const created = await Promise.all(Array.from({ length: 5 }, () => create()));
      const got = await Promise.all(created.map((payment) => get(payment.id)));
      for (const [i, res] of got.entries()) expect([res.status, res.body]).toEqual([200, created[i]]);
    }
    expect((await reads('hit')) - hitsBefore).toBe(50);
  });

  it('answers a get from its view with no database command and no request to payments', async () => {
    const { id } = await create();
    const hits = await reads('hit');
    const cost = await costOf(id);
    process.stdout.write(`a get from its view: ${JSON.stringify(cost)}\n`);
    // One message: the read of the view's key, which JetStream answers.
    expect(cost).toEqual({ commands: [], paymentsGets: 0, natsMessages: 1 });
    expect((await reads('hit')) - hits).toBe(1);
  });

  it("answers another store's payment and the other mode's 404, as if they did not exist", async () => {
    const other = await createStore(stack, 'Another store');
    const mine = await create();
    const live = await create(store.liveToken);
    for (const [id, token] of [
      [mine.id, other.token],
      [mine.id, other.liveToken],
      [mine.id, store.liveToken],
      [live.id, store.token],
    ] as const) {
      expect(await get(id, token)).toMatchObject({ status: 404, body: { message: ErrorMessages.paymentNotFound } });
    }
    expect((await get(live.id, store.liveToken)).body).toEqual(live);
  });

  it('reads a payment without a view from the database, and its next change writes the view', async () => {
    const payment = await create();
    // As the operator would after losing the bucket: the provisioning identity drops the view.
    const nc = await connectAs(stack.natsUrl, 'provisioner', stack.natsCredentials);
    try {
      const jsm = await jetstreamManager(nc);
      const key = PaymentViewsBucket.key(payment.storeId, false, payment.id)!;
      await jsm.streams.purge(`KV_${PaymentViewsBucket.name}`, { filter: `$KV.${PaymentViewsBucket.name}.${key}` });
    } finally {
      await nc.close();
    }
    const absent = await reads('absent');
    expect((await get(payment.id)).body).toEqual(payment);
    // What every get cost before the read model: payments asked, its database read; and now the view's read too.
    const cost = await costOf(payment.id);
    process.stdout.write(`a get without a view: ${JSON.stringify(cost)}\n`);
    expect({ ...cost, commands: cost.commands.map(([command]) => command) }).toEqual({
      commands: ['payments find payments'],
      paymentsGets: 1,
      natsMessages: 2,
    });
    expect((await reads('absent')) - absent).toBe(2);

    await api(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${payment.id}/cancel`, { token: store.token });
    const hits = await reads('hit');
    expect((await get(payment.id)).body).toMatchObject({ status: 'not_approved' });
    expect((await reads('hit')) - hits).toBe(1);
  });

  it("answers a get right after a cancel's answer with the payment cancelled", async () => {
    for (let round = 0; round < 10; round++) {
      const { id } = await create();
      const cancelled = await api<Payment>(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${id}/cancel`, {
        token: store.token,
      });
      expect(cancelled.body.status).toBe('not_approved');
      expect((await get(id)).body).toEqual(cancelled.body);
    }
  });

  it('keeps every view right across a restart of payments and of the gateway', async () => {
    const kept = await create();
    const changed = await create();
    const restart = async (name: 'payments' | 'gateway') => {
      const [running] = stack.processesOf(name).slice(-1);
      if (!running) throw new Error(`no ${name} process`);
      await stack.stopProcess(running, 'SIGKILL');
      await stack.startService(name, {}, stack.ports.ops[name]);
    };
    await restart('payments');
    const cancelled = await api<Payment>(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${changed.id}/cancel`, {
      token: store.token,
    });
    expect(cancelled.body.status).toBe('not_approved');
    await restart('gateway');
    const hits = await reads('hit');
    expect((await get(kept.id)).body).toEqual(kept);
    expect((await get(changed.id)).body).toEqual(cancelled.body);
    expect((await reads('hit')) - hits).toBe(2);
  });

  it('shows a Pix the webhook told of to whoever gets the payment right after', async () => {
    const { id } = await create(store.token, { amount: 21, webhookUrl });
    await admin(stack, 'sandbox', 'pay', id);
    await eventually(
      async () => receiver.events(id, 'payment.status_changed').length,
      (n) => n === 1,
    );
    const hits = await reads('hit');
    expect((await get(id)).body).toMatchObject({ id, status: 'approved' });
    expect((await reads('hit')) - hits).toBe(1);
  });
});
