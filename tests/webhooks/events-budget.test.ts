import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandsBetween, settledCounts, type CommandCounts } from '../support/db-commands';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

interface Listed {
  items: { id: string; status: string }[];
  total: number;
}

/**
 * What the Events API costs the database, counted by the driver's command monitoring on a stack of
 * the test's own: a list is a find and a count of the store's deliveries (by the indexed storeId),
 * a read is the delivery with its attempts inside it (by id and store), and nothing
 * else asks the database meanwhile (the gateway's auth is cached).
 */
describe('database commands of the Events API', () => {
  const receiver = new WebhookReceiver();
  let stack: PrivateStack;
  let store: StoreCredentials;
  let eventId: string;

  beforeAll(async () => {
    const url = await receiver.start();
    // The outbox relay's idle read (every few seconds) and the stall check's (every minute) are not
    // work a request causes.
    stack = await startPrivateStack({ env: { OUTBOX_RELAY_INTERVAL: '1h', WEBHOOK_STALL_SWEEP_INTERVAL: '1h' } });
    store = await createStore(stack, 'Events budget store');
    for (const amount of [10, 11]) {
      const res = await api(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
        token: store.token,
        body: { amount, webhookUrl: url },
      });
      expect(res.status).toBe(200);
    }
    const listed = await eventually(
      () => api<Listed>(stack.gatewayUrl, 'GET', '/public-api/v1/events', { token: store.token }),
      (res) => res.body.total === 2 && res.body.items.every((e) => e.status === 'delivered'),
    );
    eventId = listed.body.items[0]!.id;
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  async function measure(path: string, method = 'GET'): Promise<CommandCounts> {
    const before = await settledCounts(stack);
    const res = await api(stack.gatewayUrl, method, path, { token: store.token });
    expect(res.status).toBe(200);
    return commandsBetween(before, await settledCounts(stack));
  }

  it('lists for 2 commands, with or without filters', async () => {
    for (const query of ['', '?type=payment.created&limit=1&page=2', `?paymentId=${crypto.randomUUID()}`]) {
      const counts = await measure(`/public-api/v1/events${query}`);
      expect(Object.fromEntries(counts)).toEqual({
        'webhook-dispatcher find webhook_deliveries': 1,
        'webhook-dispatcher aggregate webhook_deliveries': 1,
      });
    }
  });

  it('reads one event with its attempts for 1 command', async () => {
    const counts = await measure(`/api-public/events/${eventId}`);
    expect(Object.fromEntries(counts)).toEqual({
      'webhook-dispatcher find webhook_deliveries': 1,
    });
  });
});
