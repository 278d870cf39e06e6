import { setTimeout as sleep } from 'node:timers/promises';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf, metric } from './helpers';

/** How long the endpoint takes to answer once it is back: a backlog of its retries takes a while to drain. */
const SLOW_ANSWER_MS = 500;

/**
 * A merchant's endpoint that comes back: the retries it failed wait for their schedule (here the
 * second attempt 10 minutes after the first, as production's later ones do), unless the endpoint is
 * seen answering 2xx again, which brings them forward (attempts.ts, `endpoint-back`). One slot per
 * endpoint, so that its retries line up behind each other.
 */
describe("an endpoint's retries once it answers again", () => {
  let stack: PrivateStack;
  let store: StoreCredentials;
  const receiver = new WebhookReceiver();
  let url: string;

  beforeAll(async () => {
    stack = await startPrivateStack({
      env: { WEBHOOK_RETRY_SCHEDULE: '0s,10m', WEBHOOK_ENDPOINT_CONCURRENCY: '1' },
    });
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

  it('delivers a new event while the retries its outage left drain, not after them', async () => {
    const retries = () => metric(stack.opsUrls['webhook-dispatcher'], 'webhook_retries_total');
    const retriedBefore = await retries();
    let down = true;
    receiver.respond = async () => {
      if (down) return 503;
      await sleep(SLOW_ANSWER_MS);
      return 200;
    };
    const backlog: string[] = [];
    for (let i = 0; i < 10; i++) backlog.push(await createPayment(stack, store.token, url));
    await eventually(retries, (n) => n === retriedBefore + backlog.length, 30_000);

    // The endpoint is back: a webhook's 2xx brings its ten retries forward, and they line up.
    down = false;
    const trigger = await createPayment(stack, store.token, url);
    const firstRetryAt = await eventually(
      async () => Math.min(...backlog.map((id) => receiver.events(id, 'payment.created')[1]?.at ?? Infinity)),
      (at) => at < Infinity,
      30_000,
    );
    expect(receiver.events(trigger, 'payment.created')).toHaveLength(1);

    const fresh = await createPayment(stack, store.token, url);
    const [freshHook] = await eventually(
      async () => receiver.events(fresh, 'payment.created'),
      (hooks) => hooks.length === 1,
      30_000,
    );
    // Served beside the backlog: behind the retry in flight when it came, and maybe one more, not
    // behind the eight waiting in the replica (it was, before the first attempts' line).
    const retriedFirst = backlog.filter(
      (id) => (receiver.events(id, 'payment.created')[1]?.at ?? Infinity) < freshHook!.at,
    );
    expect(retriedFirst.length).toBeLessThanOrEqual(3);
    expect(freshHook!.at - firstRetryAt).toBeLessThan(4 * SLOW_ANSWER_MS);

    // And the backlog drains, each retry made once.
    for (const id of backlog) {
      await eventually(
        async () => (await deliveriesOf(stack, id))[0]?.status,
        (status) => status === 'delivered',
        30_000,
      );
      expect(receiver.events(id, 'payment.created')).toHaveLength(2);
    }
  });

  it("sends a payment's retry ahead when its later event waits for it, though no replica remembers the retry", async () => {
    const retries = () => metric(stack.opsUrls['webhook-dispatcher'], 'webhook_retries_total');
    let down = true;
    receiver.respond = () => (down ? 503 : 200);
    const retriedBefore = await retries();
    const paymentId = await createPayment(stack, store.token, url);
    await eventually(retries, (n) => n === retriedBefore + 1, 30_000);

    // The replica that scheduled the retry (10 minutes out) restarts: nothing remembers it, so the
    // endpoint's next 2xx does not bring it forward.
    await stack.stopProcess(stack.processesOf('webhook-dispatcher').at(-1)!, 'SIGTERM');
    await stack.startService('webhook-dispatcher', {}, stack.ports.ops['webhook-dispatcher']);
    down = false;
    const other = await createPayment(stack, store.token, url);
    await eventually(
      async () => receiver.events(other, 'payment.created').length,
      (n) => n === 1,
      30_000,
    );
    expect(receiver.events(paymentId, 'payment.created')).toHaveLength(1);

    // Paid: its status change waits for payment.created, and sends that retry ahead of its schedule.
    await admin(stack, 'sandbox', 'pay', paymentId);
    await eventually(
      async () => receiver.events(paymentId, 'payment.status_changed').length,
      (n) => n === 1,
      30_000,
    );
    expect(receiver.events(paymentId).map((h) => h.json.event)).toEqual([
      'payment.created',
      'payment.created',
      'payment.status_changed',
    ]);
    const [created] = (await deliveriesOf(stack, paymentId)).filter((d) => d.event === 'payment.created');
    expect(created?.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failure'],
      [2, 'success'],
    ]);
  });
});
