import { createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf, metric } from './helpers';

/**
 * A merchant's endpoint that comes back: the retries it failed wait for their schedule (here the
 * second attempt 10 minutes after the first, as production's later ones do), unless the endpoint is
 * seen answering 2xx again, which brings them forward (attempts.ts, `endpoint-back`).
 */
describe("an endpoint's retries once it answers again", () => {
  let stack: PrivateStack;
  let store: StoreCredentials;
  const receiver = new WebhookReceiver();
  let url: string;

  beforeAll(async () => {
    stack = await startPrivateStack({ env: { WEBHOOK_RETRY_SCHEDULE: '0s,10m' } });
    store = await createStore(stack, 'Endpoint back store');
    url = await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('are made when another webhook to the same endpoint succeeds, not 10 minutes later, and once', async () => {
    let down = true;
    receiver.respond = () => (down ? 503 : 200);
    const failed = await createPayment(stack, store.token, url);
    await eventually(
      async () => (await deliveriesOf(stack, failed))[0]?.attempts ?? [],
      (attempts) => attempts.length === 1 && attempts[0]?.outcome === 'failure',
      30_000,
    );
    // Counted once its retry is scheduled, and so remembered by the replica.
    await eventually(
      () => metric(stack.opsUrls['webhook-dispatcher'], 'webhook_retries_total'),
      (n) => n === 1,
      30_000,
    );

    down = false;
    const next = await createPayment(stack, store.token, url);
    await eventually(
      async () => receiver.events(next, 'payment.created').length,
      (n) => n === 1,
      30_000,
    );
    // Well within the schedule's 10 minutes: only the endpoint's success can have sent it now.
    const [delivery] = await eventually(
      async () => deliveriesOf(stack, failed),
      (d) => d[0]?.status === 'delivered',
      30_000,
    );
    expect(delivery?.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failure'],
      [2, 'success'],
    ]);
    expect(receiver.events(failed, 'payment.created')).toHaveLength(2);
    expect(await metric(stack.opsUrls['webhook-dispatcher'], 'webhook_retries_brought_forward_total')).toBe(1);
  });
});
