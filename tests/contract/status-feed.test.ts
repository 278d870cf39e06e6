import { jetStreamAdmin } from '../support/streams';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Streams } from '@pix/contracts';
import { createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * A gateway replica follows the PAYMENTS stream only while someone watches a payment page or a
 * dashboard on it: with none open, a payment event costs it nothing. Its own stack, so that no other
 * test's page is open on it.
 */
describe('the live status feed of a gateway replica', () => {
  let stack: PrivateStack;
  let nc: NatsConnection;

  beforeAll(async () => {
    stack = await startPrivateStack({ services: ['payments', 'pix-provider-adapter', 'gateway'] });
    nc = await jetStreamAdmin(stack);
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.stop();
  });

  /** The consumers on PAYMENTS that are not durable: the gateway's followers. */
  async function followers(): Promise<number> {
    const jsm = await jetstreamManager(nc);
    const all = await jsm.consumers.list(Streams.payments.name).next();
    return all.filter((c) => !c.config.durable_name).length;
  }

  it('follows nothing while no page is open, and the stream once one is', async () => {
    const store = await createStore(stack, 'Feed store');
    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 10 },
    });
    expect(created.status).toBe(200);
    expect(await followers()).toBe(0);

    const controller = new AbortController();
    const page = await fetch(`${stack.gatewayUrl}/pay/${created.body.id}/events`, { signal: controller.signal });
    try {
      expect(page.status).toBe(200);
      expect(await eventually(followers, (n) => n === 1)).toBe(1);
    } finally {
      controller.abort();
    }
  });
});
