import { jetstreamManager } from '@nats-io/jetstream';
import { Consumers } from '@pix/contracts';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { jetStreamAdmin } from '../support/streams';
import { eventually } from '../support/api';
import { commandCounts, commandsBetween, settledCounts, total, type CommandCounts } from '../support/db-commands';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf } from './helpers';

/** The commands one service sent, without the service's name in the key. */
function of(service: string, counts: CommandCounts): CommandCounts {
  const prefix = `${service} `;
  return new Map(
    [...counts].filter(([key]) => key.startsWith(prefix)).map(([key, n]) => [key.slice(prefix.length), n]),
  );
}

/**
 * What one delivered webhook costs the database, counted from the driver's command monitoring on a
 * stack of the test's own (nothing else runs on it): the dispatcher records the delivery with its
 * first attempt claimed (one insert) and records the attempt's result with the delivery's new state
 * (one findAndModify), and reads a payment's earlier deliveries only for an event whose predecessors
 * it did not finish itself (another replica did, or one is in flight longer than the moment a later
 * event waits for it: the second case; the third, one that finishes within it). The store's
 * signing secrets come from the dispatcher's cache, so the gateway is not asked again.
 */
describe('database commands per delivered webhook', () => {
  const receiver = new WebhookReceiver();
  let stack: PrivateStack;
  let store: StoreCredentials;
  let url: string;

  beforeAll(async () => {
    url = await receiver.start();
    // The outbox relay's idle read (every few seconds), the stall check's and the reconciliation's and
    // the infractions reading's cursors (every minute) are not work a delivery causes.
    stack = await startPrivateStack({
      env: {
        OUTBOX_RELAY_INTERVAL: '1h',
        WEBHOOK_STALL_SWEEP_INTERVAL: '1h',
        RECONCILE_INTERVAL: '1h',
        INFRACTIONS_INTERVAL: '1h',
      },
    });
    store = await createStore(stack, 'Budget store');
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('delivers payment.created for 2 dispatcher commands and payment.status_changed for 2', async () => {
    // A first payment of the store fills the dispatcher's cache of its secrets.
    const warmup = await createPayment(stack, store.token, url);
    await eventually(
      async () => receiver.events(warmup),
      (hooks) => hooks.length === 1,
    );

    const beforeCreate = await settledCounts(stack);
    const id = await createPayment(stack, store.token, url);
    await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    const created = commandsBetween(beforeCreate, await settledCounts(stack));
    // Reading the log through `webhooks list` costs a find; it is not part of the delivery.
    const createdByDispatcher = of('webhook-dispatcher', created);
    const listing = createdByDispatcher.get('find webhook_deliveries') ?? 0;
    expect(listing).toBeGreaterThanOrEqual(1);

    const beforePay = await settledCounts(stack);
    await admin(stack, 'sandbox', 'pay', id);
    await eventually(
      async () => receiver.events(id, 'payment.status_changed'),
      (hooks) => hooks.length === 1,
    );
    const paid = commandsBetween(beforePay, await settledCounts(stack));
    const dispatcher = of('webhook-dispatcher', paid);
    const gateway = of('gateway', paid);
    process.stdout.write(
      `sandbox pay -> webhook answered: ${total(paid)} commands ${JSON.stringify(Object.fromEntries(paid))}\n`,
    );

    expect(Object.fromEntries(dispatcher)).toEqual({
      // no read of the earlier events: this replica delivered payment.created itself
      'insert webhook_deliveries': 1,
      'findAndModify webhook_deliveries': 1,
    });
    expect(total(gateway)).toBe(0);
    expect(Object.fromEntries(createdByDispatcher)).toEqual({
      'insert webhook_deliveries': 1,
      'findAndModify webhook_deliveries': 1,
      // webhooks list, read by the test to see it delivered (one find per reading)
      'find webhook_deliveries': listing,
    });
  });

  it('holds payment.status_changed behind a payment.created in flight, and wakes it for 6 commands more', async () => {
    // payment.created is answered only once payment.status_changed has been taken in and is held:
    // it waits a moment for the event in hand (events-in-hand.ts), then goes on and is held.
    let answerCreated: () => void = () => undefined;
    const createdAnswered = new Promise<number>((resolve) => (answerCreated = () => resolve(200)));
    receiver.respond = (hook) => (hook.json.event === 'payment.created' ? createdAnswered : 200);
    try {
      const before = await settledCounts(stack);
      const id = await createPayment(stack, store.token, url);
      await eventually(
        async () => receiver.events(id, 'payment.created'),
        (hooks) => hooks.length === 1,
      );
      const updates = async () => (await commandCounts(stack)).get('webhook-dispatcher update webhook_deliveries') ?? 0;
      const updatesBefore = await updates();
      await admin(stack, 'sandbox', 'pay', id);
      // The held event marks the pending one it waits behind (an update); then created is answered.
      await eventually(updates, (n) => n > updatesBefore);
      answerCreated();
      await eventually(
        async () => receiver.events(id, 'payment.status_changed'),
        (hooks) => hooks.length === 1,
      );
      const dispatcher = of('webhook-dispatcher', commandsBetween(before, await settledCounts(stack, 1_500)));

      expect(Object.fromEntries(dispatcher)).toEqual({
        // created: recorded with its attempt claimed, then its result (which finds the mark)
        'insert webhook_deliveries': 2, // ...and status_changed recorded, unclaimed, as it is held
        'findAndModify webhook_deliveries': 2, // both results
        // status_changed's earlier events read as it is taken in (not again as it is woken: the
        // wake says they finished); created, finishing, reads the delivery it wakes
        'find webhook_deliveries': 2,
        'update webhook_deliveries': 2, // the mark on created; the claim of the woken attempt
      });
      expect(receiver.events(id).map((hook) => hook.json.event)).toEqual(['payment.created', 'payment.status_changed']);
    } finally {
      receiver.respond = () => 200;
    }
  });

  it("delivers a payment's events that come together for 2 commands each: the later waits a moment", async () => {
    // The dispatcher's intake paused while the payment is made and paid: its two events come in
    // one pull, as after payments' publishes waited out a NATS election.
    const nc = await jetStreamAdmin(stack);
    const jsm = await jetstreamManager(nc);
    const { stream, durable } = Consumers.dispatcherPayments;
    try {
      const before = await settledCounts(stack);
      await jsm.consumers.pause(stream, durable, new Date(Date.now() + 120_000));
      const id = await createPayment(stack, store.token, url);
      await admin(stack, 'sandbox', 'pay', id);
      await eventually(
        async () => (await jsm.consumers.info(stream, durable)).num_pending,
        (pending) => pending >= 2,
      );
      await jsm.consumers.resume(stream, durable);
      await eventually(
        async () => receiver.events(id),
        (hooks) => hooks.length === 2,
      );
      const dispatcher = of('webhook-dispatcher', commandsBetween(before, await settledCounts(stack, 1_500)));

      // status_changed waited a moment in this replica for created to finish: no read of the
      // earlier events, no hold. Taken in at once, it found created not recorded (held: a read, an
      // insert, then a scheduled look) or pending (a read, a mark, the wake's read and claim).
      expect(Object.fromEntries(dispatcher)).toEqual({
        'insert webhook_deliveries': 2,
        'findAndModify webhook_deliveries': 2,
      });
      expect(receiver.events(id).map((hook) => hook.json.event)).toEqual(['payment.created', 'payment.status_changed']);
    } finally {
      await jsm.consumers.resume(stream, durable).catch(() => undefined);
      await nc.close();
    }
  });
});
