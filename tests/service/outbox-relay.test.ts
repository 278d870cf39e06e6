import { MongoNetworkError, type CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { DATABASE_CLIENT_OPTIONS } from '@pix/runtime';
import { Subjects } from '@pix/contracts';
import { createLogger } from '@pix/observability';
import {
  OutboxWriterModel,
  PaymentModel,
  paymentsCollection,
  type OutboxMessage,
  type PaymentDoc,
} from '../../services/payments/src/model';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import type { Publish } from '../../services/payments/src/payment-storage';
import { transition } from '../../services/payments/src/transitions';
import { pendingPaymentDoc } from './payment-fixture';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';

const created = (id: string): OutboxMessage => ({
  subject: Subjects.paymentEvent('payment.created', false),
  msgId: `evt_${id}`,
  body: { id },
});
const ids = (messages: OutboxMessage[]) => messages.map((m) => m.msgId);

/**
 * The outbox inside each payment, against the real engine: a write stores what it owes in the same
 * command, so whatever happens after the write (its answer lost, JetStream away, the writer dead),
 * the messages are in the payment, and are published by their writer or, when it cannot, by the
 * relay. That a message was published is written nowhere: each names its writer, whose record says
 * how far it has published, and the payment's next write leaves out what is known published.
 */
describe('the outbox of a payment', () => {
  const published: OutboxMessage[] = [];
  let failing = false;
  const publish: Publish = async (messages) => {
    if (failing) throw new Error('JetStream unreachable');
    published.push(...messages);
    order.push(...ids(messages));
  };
  /** The views written to the read model (payments' own KV bucket, on the same JetStream), by revision. */
  const viewed: Pick<PaymentDoc, '_id' | 'rev'>[] = [];
  const views = {
    write: async ({ _id, rev }: PaymentDoc) => {
      if (failing) throw new Error('JetStream unreachable');
      viewed.push({ _id, rev });
      order.push(`view:${_id}:${rev}`);
    },
  };
  /** Views and messages as they went out, in one order. */
  const order: string[] = [];
  const logger = createLogger('test', 'silent');
  const store = new PaymentStore(publish, async () => 0, logger, views);
  const outboxOf = async (id: string) => (await PaymentModel.findById(id).lean())?.outbox ?? [];
  const sent: CommandStartedEvent[] = [];
  const record = (event: CommandStartedEvent) => sent.push(event);
  /** The commands `operation` sends, as `command collection` → count. */
  async function commandsOf(operation: () => Promise<unknown>): Promise<Record<string, number>> {
    sent.length = 0;
    await operation();
    const counts: Record<string, number> = {};
    for (const event of sent) {
      const key = `${event.commandName} ${String(event.command[event.commandName])}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/outbox_relay'), DATABASE_CLIENT_OPTIONS);
    await syncPaymentIndexes();
    mongoose.connection.getClient().on('commandStarted', record);
    // This writer's record, as the service makes it before its first write.
    await store.relay(60_000);
  });
  beforeEach(() => {
    published.length = 0;
    viewed.length = 0;
    order.length = 0;
    failing = false;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    mongoose.connection.getClient().off('commandStarted', record);
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  it('costs a create one insert and a change one read and one update: a publish is recorded nowhere', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    expect(await commandsOf(() => store.insert(doc, [created(doc._id)]))).toEqual({ 'insert payments': 1 });
    expect(ids(published)).toEqual([`evt_${doc._id}`, `count:${doc._id}:1:all`, `count:${doc._id}:1:pending`]);
    // The view the insert owed (a JetStream write, no database command) went before its messages.
    expect(order).toEqual([`view:${doc._id}:1`, ...ids(published)]);
    // The messages stay in the payment, naming their writer, until its next write: the view too.
    expect(ids(await outboxOf(doc._id))).toEqual([...ids(published), `view:${doc._id}:1`]);

    published.length = 0;
    order.length = 0;
    expect(await commandsOf(() => transition(store, doc._id, 'pending', 'approved'))).toEqual({
      'find payments': 1,
      'update payments': 1,
    });
    // The next write left out what was published, and holds its own messages only.
    expect(ids(await outboxOf(doc._id))).toEqual([...ids(published), `view:${doc._id}:2`]);
    expect(ids(published)).toEqual([
      expect.stringMatching(/^evt_/),
      `count:${doc._id}:2:pending`,
      `count:${doc._id}:2:approved`,
    ]);
    expect(order).toEqual([`view:${doc._id}:2`, ...ids(published)]);
    // A pass of the relay with nothing left, after a process's first: its own record and the
    // writers (no writer is silent, and messages from before writers were named are looked for at
    // the first pass and every few minutes).
    expect(await commandsOf(() => store.relay(60_000))).toEqual({
      'update outbox_writers': 1,
      'find outbox_writers': 1,
    });
    expect(published).toHaveLength(3);
  });

  it('publishes what an insert owes when its answer is lost, at the next pass', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    const collection = PaymentModel.collection;
    const insertOne = collection.insertOne.bind(collection);
    // The database stored the payment and the answer never came (a database killed as it committed).
    jest.spyOn(collection, 'insertOne').mockImplementationOnce((async (...args: Parameters<typeof insertOne>) => {
      await insertOne(...args);
      throw new MongoNetworkError('connection 7 to 127.0.0.1:27017 closed');
    }) as never);

    await expect(store.insert(doc, [created(doc._id)])).rejects.toThrow(MongoNetworkError);
    expect(published).toEqual([]);
    expect(ids(await outboxOf(doc._id))).toContain(`evt_${doc._id}`);

    expect(await store.relay(60_000)).toEqual({ relayed: 1, waiting: 0 });
    expect(ids(published)).toContain(`evt_${doc._id}`);
    // The view the insert owed too, made from the payment the relay read, before its messages.
    expect(viewed).toEqual([{ _id: doc._id, rev: 1 }]);
    expect(order[0]).toBe(`view:${doc._id}:1`);
    published.length = 0;
    viewed.length = 0;
    expect(await store.relay(60_000)).toEqual({ relayed: 0, waiting: 0 });
    expect(published).toEqual([]);
    expect(viewed).toEqual([]);
  });

  it("publishes a silent writer's messages from where it said it had published, once", async () => {
    // Another process: its writes reach the database, never JetStream, and then it dies.
    const dying = new PaymentStore(
      async () => {
        throw new Error('JetStream unreachable');
      },
      async () => 0,
      logger,
      {
        write: async () => {
          throw new Error('JetStream unreachable');
        },
      },
    );
    const early = pendingPaymentDoc({ storeId: 'outbox-store' });
    const late = pendingPaymentDoc({ storeId: 'outbox-store' });
    await dying.relay(60_000);
    await store.insert(early, [created(early._id)]);
    await dying.insert(late, [created(late._id)]);
    published.length = 0;
    viewed.length = 0;

    // Still speaking: nothing of it is taken.
    expect(await store.relay(60_000)).toEqual({ relayed: 0, waiting: 0 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.relay(10)).toEqual({ relayed: 1, waiting: 0 });
    expect(ids(published)).toEqual([`evt_${late._id}`, `count:${late._id}:1:all`, `count:${late._id}:1:pending`]);
    // Its payment's view, which it owed as well, made from the payment read whole.
    expect(viewed).toEqual([{ _id: late._id, rev: 1 }]);
    const [record] = await OutboxWriterModel.find({ gone: true }).lean();
    expect(record).toBeDefined();
    published.length = 0;
    expect(await store.relay(10)).toEqual({ relayed: 0, waiting: 0 });
    // Its messages are now known published: the payment's next write leaves them out.
    await transition(store, late._id, 'pending', 'approved');
    expect((await outboxOf(late._id)).map((m) => m.msgId)).not.toContain(`evt_${late._id}`);
  });

  it('keeps what a change owes while JetStream is away, and the next write publishes it first', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    await store.insert(doc, [created(doc._id)]);
    failing = true;
    const approved = await transition(store, doc._id, 'pending', 'approved');
    expect(approved.changed).toBe(true);
    const owed = await outboxOf(doc._id);
    expect(owed.map((m) => m.subject)).toEqual([
      Subjects.paymentEvent('payment.status_changed', false),
      'payments.counts.outbox-store.pending',
      'payments.counts.outbox-store.approved',
      `$KV.PAYMENT_VIEWS.test.outbox-store.${doc._id}`,
    ]);

    failing = false;
    published.length = 0;
    await transition(store, doc._id, 'approved', 'paid');
    // The earlier change's messages go before this one's: a payment's events stay in order (the
    // writer's own retry may have published them already: JetStream keeps one per message id).
    const events = [...new Map(published.filter((m) => m.increment === undefined).map((m) => [m.msgId, m])).values()];
    expect(events.map((m) => (m.body as { body: { status: string } }).body.status)).toEqual(['approved', 'paid']);
    // The second write's view shows the payment as it left it (a view of the first, should the
    // writer's retry still write it, never replaces it: payment-views.test.ts).
    expect(viewed).toContainEqual({ _id: doc._id, rev: 3 });
    await store.flush();
  });

  it('publishes what a write owes as soon as JetStream is back, without waiting for the relay', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    failing = true;
    expect(await store.insert(doc, [created(doc._id)])).toBe('created');
    // JetStream stays away through a few of the writer's tries, then comes back.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(published).toEqual([]);
    // A relay pass meanwhile says the payment waits, and publishes nothing: it is not its to relay.
    expect(await store.relay(60_000)).toEqual({ relayed: 0, waiting: 1 });
    expect(published).toEqual([]);
    failing = false;
    const back = Date.now();
    await eventually(
      async () => ids(published),
      (sent) => sent.includes(`evt_${doc._id}`),
      5_000,
      50,
    );
    // Within the writer's next try (2 s at most), well before the relay's first look (5 s).
    expect(Date.now() - back).toBeLessThan(2_500);
    // The retry kept the payment as written: its view went too, before its messages.
    expect(viewed).toEqual([{ _id: doc._id, rev: 1 }]);
    expect(order[0]).toBe(`view:${doc._id}:1`);
  });

  it("publishes what waits as soon as another write's publish goes through, not at the writer's next try", async () => {
    const first = pendingPaymentDoc({ storeId: 'outbox-store' });
    failing = true;
    expect(await store.insert(first, [created(first._id)])).toBe('created');
    // Away through the tries at 0.25, 0.75 and 1.75 s: the next is 2 s later.
    await new Promise((resolve) => setTimeout(resolve, 1_900));
    failing = false;
    const second = pendingPaymentDoc({ storeId: 'outbox-store' });
    expect(await store.insert(second, [created(second._id)])).toBe('created');
    const back = Date.now();
    await eventually(
      async () => ids(published),
      (sent) => sent.includes(`evt_${first._id}`),
      5_000,
      20,
    );
    // Before the writer's next try (at 3.75 s, 1.85 s after this), whose wait was all it had before.
    expect(Date.now() - back).toBeLessThan(500);
    expect(viewed).toContainEqual({ _id: first._id, rev: 1 });
  });

  it('publishes messages stored before they named their writer, and removes them as then', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    const stored = { ...created(doc._id), at: new Date(Date.now() - 10_000) };
    await paymentsCollection().insertOne({
      ...doc,
      listKey: `legacy-${doc._id}`,
      statusKey: `legacy-${doc._id}`,
      outbox: [stored],
    });
    // A process started after such a writer died finds them at its first pass.
    const started = new PaymentStore(publish, async () => 0, logger, views);
    expect(await started.relay(60_000)).toEqual({ relayed: 1, waiting: 0 });
    expect(ids(published)).toEqual([`evt_${doc._id}`]);
    // Such an outbox owes no view (views came after writers were named).
    expect(viewed).toEqual([]);
    expect(await outboxOf(doc._id)).toEqual([]);
    // Its next passes do not look again for minutes: the look reads the whole outbox index.
    expect(Object.keys(await commandsOf(() => started.relay(60_000)))).not.toContain('find payments');
    await started.flush();
  });

  it('a writer taken for dead while frozen says it is alive before it writes again, so its next crash is relayed', async () => {
    // Another process, whose publishes never reach JetStream: it passes once, then is silent (frozen).
    const frozen = new PaymentStore(
      async () => {
        throw new Error('JetStream unreachable');
      },
      async () => 0,
      logger,
      views,
    );
    // This process has published all it wrote, and says so: the frozen one finds nothing of it.
    await store.relay(60_000);
    await frozen.relay(10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await store.relay(10);
    // Every writer but this one was silent past the limit: all taken for dead, the frozen one too.
    expect(await OutboxWriterModel.countDocuments({ gone: false })).toBe(1);

    // It wakes and writes; the write lands, its publish does not, and the process dies there.
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    expect(await frozen.insert(doc, [created(doc._id)])).toBe('created');
    // It said it is alive first.
    expect(await OutboxWriterModel.countDocuments({ gone: false })).toBe(2);
    published.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Silent again: the others relay what it left, from where it said it had published.
    expect((await store.relay(10)).relayed).toBeGreaterThanOrEqual(1);
    expect(ids(published)).toContain(`evt_${doc._id}`);
  });
});
