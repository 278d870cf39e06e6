import { accountOf, Subjects } from '@pix/contracts';
import { createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * A gateway replica subscribes to the PAYMENTS stream's feed only while someone watches a payment
 * page or a dashboard on it: with none open, a payment event costs it nothing. Its own stack, so
 * that no other test's page is open on it; NATS's monitoring shows the gateway account's interest.
 */
describe('the live status feed of a gateway replica', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({ services: ['payments', 'pix-provider-adapter', 'gateway'] });
  });
  afterAll(() => stack?.stop());

  /** The gateway account's subscriptions to the payment events' feed. */
  async function feedSubscriptions(): Promise<number> {
    const url = `http://127.0.0.1:${stack.ports.natsMonitor}/subsz?subs=1&acc=${accountOf('gateway')}&limit=10000`;
    const subsz = (await (await fetch(url)).json()) as { subscriptions_list?: { subject: string }[] };
    return (subsz.subscriptions_list ?? []).filter((sub) => sub.subject === Subjects.paymentEventsFeedAll).length;
  }

  it('subscribes to nothing while no page is open, and to the feed once one is', async () => {
    const store = await createStore(stack, 'Feed store');
    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 10 },
    });
    expect(created.status).toBe(200);
    expect(await feedSubscriptions()).toBe(0);

    const controller = new AbortController();
    const page = await fetch(`${stack.gatewayUrl}/pay/${created.body.id}/events`, { signal: controller.signal });
    try {
      expect(page.status).toBe(200);
      expect(await eventually(feedSubscriptions, (n) => n === 1)).toBe(1);
    } finally {
      controller.abort();
    }
  });
});
