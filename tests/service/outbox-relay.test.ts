import { MongoNetworkError, type CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { Subjects } from '@pix/contracts';
import { createLogger } from '@pix/observability';
import { PaymentModel, type OutboxMessage } from '../../services/payments/src/model';
import { OutboxRelay } from '../../services/payments/src/outbox';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { transition } from '../../services/payments/src/transitions';
import { pendingPaymentDoc } from './payment-fixture';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';

const created = (id: string): OutboxMessage => ({
  subject: 'payments.events.created',
  msgId: `evt_${id}`,
  body: { id },
});
const ids = (messages: OutboxMessage[]) => messages.map((m) => m.msgId);

/**
 * The outbox inside each payment, against the real engine: a write stores what it owes in the same
 * command, so whatever happens after the write (its answer lost, JetStream away, the writer dead),
 * the messages are in the payment until they are published, and the relay publishes them.
 */
describe('the outbox of a payment', () => {
  const published: OutboxMessage[] = [];
  let failing = false;
  const publish = async (messages: OutboxMessage[]) => {
    if (failing) throw new Error('JetStream unreachable');
    published.push(...messages);
  };
  const logger = createLogger('test', 'silent');
  const store = new PaymentStore(publish, async () => 0, logger);
  const outboxOf = async (id: string) => (await PaymentModel.findById(id).lean())?.outbox ?? [];

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/outbox_relay'), {
      monitorCommands: true,
    });
    await syncPaymentIndexes();
  });
  beforeEach(() => {
    published.length = 0;
    failing = false;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  it('is emptied once the writer has published it', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    expect(await store.insert(doc, [created(doc._id)])).toBe('created');
    expect(ids(published)).toEqual([`evt_${doc._id}`, `count:${doc._id}:1:all`, `count:${doc._id}:1:pending`]);
    await store.flush();
    expect(await outboxOf(doc._id)).toEqual([]);
  });

  it("empties many payments' outboxes with one command, each payment found by its id", async () => {
    // DocumentDB runs an update filtered by `_id: {$in: [...]}` as a scan of the whole collection,
    // so the removal is one update command with a statement per payment, each by `_id` alone.
    const docs = [1, 2, 3].map(() => pendingPaymentDoc({ storeId: 'outbox-store' }));
    const sent: CommandStartedEvent[] = [];
    const client = mongoose.connection.getClient();
    const count = (event: CommandStartedEvent) => {
      if (event.commandName === 'update' && event.command.update === 'payments') sent.push(event);
    };
    client.on('commandStarted', count);
    try {
      await Promise.all(docs.map((doc) => store.insert(doc, [created(doc._id)])));
      await store.flush();
    } finally {
      client.off('commandStarted', count);
    }
    expect(sent).toHaveLength(1);
    const statements = (sent[0]?.command.updates ?? []) as { q: Record<string, unknown> }[];
    expect(statements.map((u) => u.q).sort((a, b) => String(a._id).localeCompare(String(b._id)))).toEqual(
      docs.map((doc) => ({ _id: doc._id })).sort((a, b) => a._id.localeCompare(b._id)),
    );
    for (const doc of docs) expect(await outboxOf(doc._id)).toEqual([]);
  });

  it('keeps what an insert owes when its answer is lost, and the relay publishes it', async () => {
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

    const relay = new OutboxRelay(store, logger, 500);
    // Messages are left to their writer for a few seconds before the relay takes them.
    relay.start();
    await eventually(
      async () => published.length,
      (n) => n > 0,
      15_000,
    );
    await relay.stop();
    await store.flush();
    expect(ids(published)).toContain(`evt_${doc._id}`);
    expect(await outboxOf(doc._id)).toEqual([]);
  });

  it('keeps what a change owes while JetStream is away, and the next write publishes it first', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    await store.insert(doc, [created(doc._id)]);
    await store.flush();
    failing = true;
    const approved = await transition(store, doc._id, 'pending', 'approved');
    expect(approved.changed).toBe(true);
    const owed = await outboxOf(doc._id);
    expect(owed.map((m) => m.subject)).toEqual([
      Subjects.paymentEvent('payment.status_changed', false),
      'payments.counts.outbox-store.pending',
      'payments.counts.outbox-store.approved',
    ]);

    failing = false;
    published.length = 0;
    await transition(store, doc._id, 'approved', 'paid');
    // The earlier change's messages go before this one's: a payment's events stay in order (the
    // writer's own retry may have published them already: JetStream keeps one per message id).
    const events = [...new Map(published.filter((m) => m.increment === undefined).map((m) => [m.msgId, m])).values()];
    expect(events.map((m) => (m.body as { body: { status: string } }).body.status)).toEqual(['approved', 'paid']);
    await store.flush();
    expect(await outboxOf(doc._id)).toEqual([]);
  });

  it('publishes what a write owes as soon as JetStream is back, without waiting for the relay', async () => {
    const doc = pendingPaymentDoc({ storeId: 'outbox-store' });
    failing = true;
    expect(await store.insert(doc, [created(doc._id)])).toBe('created');
    // JetStream stays away through a few of the writer's tries, then comes back.
    await new Promise((resolve) => setTimeout(resolve, 600));
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
    await store.flush();
    expect(await outboxOf(doc._id)).toEqual([]);
  });
});
