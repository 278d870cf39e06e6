import { jetStreamAdmin } from '../support/streams';
import { jetstreamManager } from '@nats-io/jetstream';
import { Consumers, Streams, Subjects } from '@pix/contracts';
import { admin, createStore } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf, metric } from './helpers';
import { withDb } from '../support/db';
import { databaseOf } from '@pix/devstack';

/**
 * The stall check under the attempt messages: a delivery whose next attempt's message is gone
 * (purged from WEBHOOK_ATTEMPTS, as a message lost in a cluster would be) is found still pending a
 * while after that attempt was due, and its attempt is published again. It is delivered, under its
 * one webhook-id, and nothing on time is touched. Lost here: a scheduled retry, and a replay's first
 * attempt JetStream had stored under its message id (which must not keep the new one out).
 */
describe('a delivery whose attempt message went missing', () => {
  const receiver = new WebhookReceiver();
  let stack: PrivateStack;
  const stalled = () => metric(stack.opsUrls['webhook-dispatcher'], 'webhook_stalled_total');
  const purge = async (subject: string): Promise<number> => {
    const nc = await jetStreamAdmin(stack);
    try {
      const jsm = await jetstreamManager(nc);
      return (await jsm.streams.purge(Streams.webhookAttempts.name, { filter: subject })).purged;
    } finally {
      await nc.close();
    }
  };

  let url: string;
  /** A payment of a new store whose payment.created failed its first attempt: its retry is 20 s away. */
  const paymentWithCreatedRetried = async (storeName: string): Promise<string> => {
    let createdAnswers = 0;
    receiver.respond = (hook) => (hook.json.event === 'payment.created' && createdAnswers++ === 0 ? 500 : 200);
    const store = await createStore(stack, storeName);
    const id = await createPayment(stack, store.token, url);
    await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.attempts[0]?.outcome === 'failure' && d[0].nextAttemptAt !== null,
    );
    return id;
  };

  beforeAll(async () => {
    url = await receiver.start();
    stack = await startPrivateStack({
      env: { WEBHOOK_RETRY_SCHEDULE: '0s,20s', WEBHOOK_STALL_AFTER: '5s', WEBHOOK_STALL_SWEEP_INTERVAL: '2s' },
    });
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('is delivered when its scheduled retry is lost', async () => {
    let first = true;
    receiver.respond = () => {
      const status = first ? 500 : 200;
      first = false;
      return status;
    };
    const store = await createStore(stack, 'Stall store');
    const id = await createPayment(stack, store.token, url);
    const before = await stalled();
    // The first attempt failed and its retry waits 20 s as a scheduled message...
    await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.attempts.length === 1 && d[0].attempts[0]?.outcome === 'failure' && d[0].nextAttemptAt !== null,
    );
    // ...which is lost.
    expect(await purge(Subjects.webhookAttemptScheduled(id, 1))).toBe(1);

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
    expect((await stalled()) - before).toBe(1);
  }, 150_000);

  it('publishes nothing for an event held behind an earlier one still retried: that one wakes it', async () => {
    const id = await paymentWithCreatedRetried('Stall store 3');
    const before = await stalled();
    // Its status change is held behind payment.created, whose retry is 20 s away: the check finds
    // it not moved on 5 s after it was held, well before the retry (and may look again 10 s later).
    await admin(stack, 'sandbox', 'pay', id);
    const deliveries = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d.length === 2 && d.every((delivery) => delivery.status === 'delivered'),
      120_000,
      1000,
    );
    expect(receiver.events(id).map((h) => [h.json.event, h.headers['webhook-id']])).toEqual([
      ['payment.created', deliveries[0]?.eventId],
      ['payment.created', deliveries[0]?.eventId],
      ['payment.status_changed', deliveries[1]?.eventId],
    ]);
    expect(deliveries[1]?.attempts).toHaveLength(1);
    expect((await stalled()) - before).toBe(0);
  }, 150_000);

  it('marks the earlier event of one held while that was not recorded, which then wakes it', async () => {
    const id = await paymentWithCreatedRetried('Stall store 4');
    const before = await stalled();
    await admin(stack, 'sandbox', 'pay', id);
    const [created] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d.length === 2 && d[1]?.status === 'pending',
    );
    // As if the status change had been held while payment.created was not recorded yet (intake is
    // parallel), its look then lost: nobody marked payment.created to wake it. The check, 5 s on,
    // finds it behind a pending event and marks that one.
    await withDb(
      stack.mongoAdminUrl!,
      (db) =>
        db
          .collection('webhook_deliveries')
          .updateOne({ _id: created!.eventId as never }, { $set: { successorWaiting: false } }),
      databaseOf(stack.mongoUrl),
    );

    const deliveries = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d.length === 2 && d.every((delivery) => delivery.status === 'delivered'),
      120_000,
      1000,
    );
    // Woken as payment.created's retry succeeded (20 s after its failure), not at a later look (the
    // check's looks behind it double: 5, 15, 35 s after the hold).
    const retried = Date.parse(deliveries[0]!.attempts[1]!.at);
    const woken = Date.parse(deliveries[1]!.attempts[0]!.at);
    expect(woken - retried).toBeGreaterThanOrEqual(0);
    expect(woken - retried).toBeLessThan(3000);
    expect(receiver.events(id).map((h) => h.json.event)).toEqual([
      'payment.created',
      'payment.created',
      'payment.status_changed',
    ]);
    expect((await stalled()) - before).toBe(0);
  }, 150_000);

  it('is delivered when a first attempt is lost after JetStream stored it', async () => {
    receiver.respond = () => 200;
    const store = await createStore(stack, 'Stall store 2');
    const id = await createPayment(stack, store.token, url);
    const [delivered] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    const before = await stalled();
    // A replay's first attempt goes through WEBHOOK_ATTEMPTS; it waits there (the consumer paused)
    // while its message is stored and lost.
    const nc = await jetStreamAdmin(stack);
    const jsm = await jetstreamManager(nc);
    const { stream, durable } = Consumers.dispatcherAttempts;
    await jsm.consumers.pause(stream, durable, new Date(Date.now() + 120_000));
    try {
      expect(await admin(stack, 'webhooks', 'replay', delivered!.eventId)).toMatchObject({ run: 2 });
      expect(await purge(Subjects.webhookAttemptDue)).toBe(1);
      await jsm.consumers.resume(stream, durable);

      // Published again under an id of its own: the first attempt's id is still in the window.
      const [delivery] = await eventually(
        () => deliveriesOf(stack, id),
        (d) => d[0]?.status === 'delivered' && d[0].attempts.length === 2,
        120_000,
        1000,
      );
      expect(delivery?.attempts.map((a) => [a.run, a.attempt, a.outcome])).toEqual([
        [1, 1, 'success'],
        [2, 1, 'success'],
      ]);
      expect(receiver.events(id)).toHaveLength(2);
      expect((await stalled()) - before).toBe(1);
    } finally {
      await jsm.consumers.resume(stream, durable).catch(() => undefined);
      await nc.close();
    }
  }, 150_000);
});
