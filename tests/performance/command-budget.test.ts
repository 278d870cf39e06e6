import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandsBetween, settledCounts, total, type CommandCounts } from '../support/db-commands';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * What each operation costs in database commands, counted by the driver's command monitoring in
 * every service (db_commands_total), from the first command the operation causes until the whole
 * platform is quiet again: background steps it causes count too. Counts, never timings. The sandbox
 * PSP's own books (sandbox_psp_*) stand for the PSP's database and are left out.
 *
 * Before this budget (the outbox relay, deadline runner and webhook scheduler polling MongoDB) the
 * same operations cost: create 7, get 1, list 2, PSP confirmation to webhook answered 23.
 */
describe('database commands per operation', () => {
  let stack: PrivateStack;
  let store: StoreCredentials;
  const receiver = new WebhookReceiver();
  let webhookUrl: string;

  beforeAll(async () => {
    // The outbox sweep's idle read (every few seconds) and the stall check's (every minute) are not
    // work an operation causes.
    stack = await startPrivateStack({ env: { OUTBOX_SWEEP_INTERVAL: '1h', WEBHOOK_STALL_SWEEP_INTERVAL: '1h' } });
    webhookUrl = await receiver.start();
    store = await createStore(stack.natsUrl);
    // The first request of a token reads it; every later one is served by the gateway's cache.
    await create({ amount: 10 });
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  function create(body: Record<string, unknown>) {
    return api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', { token: store.token, body });
  }

  async function measure(operation: () => Promise<unknown>): Promise<CommandCounts> {
    const before = await settledCounts(stack);
    await operation();
    return commandsBetween(before, await settledCounts(stack));
  }

  it('create costs at most 3 commands', async () => {
    const counts = await measure(async () => expect((await create({ amount: 25.5 })).status).toBe(200));
    expect(total(counts)).toBeLessThanOrEqual(3);
    expect([...counts.keys()].every((key) => key.startsWith('payments '))).toBe(true);
  });

  it('get costs 1 command and list 2', async () => {
    const { body } = await create({ amount: 12 });
    const get = await measure(async () =>
      expect(
        (await api(stack.gatewayUrl, 'GET', `/api-public/payments/${body.id}`, { token: store.token })).status,
      ).toBe(200),
    );
    expect([...get]).toEqual([['payments find payments', 1]]);
    const list = await measure(async () =>
      expect(
        (await api(stack.gatewayUrl, 'GET', '/api-public/payments?status=pending&limit=5', { token: store.token }))
          .status,
      ).toBe(200),
    );
    expect(total(list)).toBe(2);
  });

  it("costs at most 11 commands from the PSP's confirmation to the merchant's webhook answered 2xx", async () => {
    const { body } = await create({ amount: 30, webhookUrl });
    await eventually(
      async () => receiver.events(body.id, 'payment.created').length,
      (n) => n === 1,
    );
    const counts = await measure(async () => {
      await admin(stack.natsUrl, 'sandbox', 'pay', body.id);
      await eventually(
        async () => receiver.events(body.id, 'payment.status_changed').length,
        (n) => n === 1,
      );
    });
    expect(total(counts)).toBeLessThanOrEqual(11);
  });
});
