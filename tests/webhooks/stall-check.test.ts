import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Streams, Subjects } from '@pix/contracts';
import { createStore } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf, metric } from './helpers';

/**
 * The stall check under the attempt messages: a delivery whose next attempt's message is gone (here
 * the scheduled retry is purged from WEBHOOK_ATTEMPTS, as a message lost in a cluster would be) is
 * found still pending a while after that attempt was due, and its attempt is published again. It is
 * delivered, under its one webhook-id, and nothing on time is touched.
 */
describe('a delivery whose attempt message went missing', () => {
  const receiver = new WebhookReceiver();
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({
      env: { WEBHOOK_RETRY_SCHEDULE: '0s,20s', WEBHOOK_STALL_AFTER: '5s', WEBHOOK_STALL_SWEEP_INTERVAL: '2s' },
    });
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('is delivered by the stall check', async () => {
    const url = await receiver.start();
    let first = true;
    receiver.respond = () => {
      const status = first ? 500 : 200;
      first = false;
      return status;
    };
    const store = await createStore(stack.natsUrl, 'Stall store');
    const id = await createPayment(stack, store.token, url);
    // The first attempt failed and its retry waits 20 s as a scheduled message...
    await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.attempts.length === 1 && d[0].attempts[0]?.outcome === 'failure' && d[0].nextAttemptAt !== null,
    );
    // ...which is lost.
    const nc = await connect({ servers: stack.natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      const purged = await jsm.streams.purge(Streams.webhookAttempts.name, {
        filter: Subjects.webhookAttemptScheduled(id, 1),
      });
      expect(purged.purged).toBe(1);
    } finally {
      await nc.close();
    }

    // 20 s until it was due, 5 s more, and the end of that minute: the check publishes attempt 2.
    const [delivery] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
      120_000,
      1000,
    );
    expect(delivery?.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failure'],
      [2, 'success'],
    ]);
    expect(new Set(receiver.events(id).map((h) => h.headers['webhook-id']))).toEqual(new Set([delivery?.eventId]));
    expect(receiver.events(id).map((h) => h.json.event)).toEqual(['payment.created', 'payment.created']);
    expect(await metric(stack.opsUrls['webhook-dispatcher'], 'webhook_stalled_total')).toBe(1);
  }, 150_000);
});
