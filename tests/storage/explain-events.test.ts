import { equalityIndexName } from '@pix/devstack';
import { MongoClient, type Document } from 'mongodb';
import { countCommand, expectServedByIndex, explain } from '../support/explain';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';

const STORES = 40;
const DELIVERIES = 3_000;

const eventId = (i: number) => `evt_${i.toString(16).padStart(32, '0')}`;
const store = (i: number) => `store_${String(i % STORES).padStart(3, '0')}`;
const payment = (i: number) => `pay_${String(Math.floor(i / 2)).padStart(8, '0')}`;
const type = (i: number) => (i % 2 === 0 ? 'payment.created' : 'payment.status_changed');
/** One in fifty is pending, due for a look in one of a few minutes. */
const checkMinute = (i: number) => `2026-01-01T00:${String(i % 7).padStart(2, '0')}`;

/** One query of the Events API (services/webhook-dispatcher/src/delivery-log.ts) and the listed fields that may serve it. */
interface EventsQuery {
  name: string;
  collection: 'webhook_deliveries' | 'webhook_attempts';
  filter: Document;
  indexedBy: string[];
}

const target = 1_234;
const queries: EventsQuery[] = [
  {
    name: "a store's events",
    collection: 'webhook_deliveries',
    filter: { storeId: store(target) },
    indexedBy: ['storeId'],
  },
  {
    name: "a store's events of one type",
    collection: 'webhook_deliveries',
    filter: { storeId: store(target), type: type(target) },
    indexedBy: ['storeId', 'type'],
  },
  {
    name: "a store's events of one payment",
    collection: 'webhook_deliveries',
    filter: { storeId: store(target), paymentId: payment(target) },
    indexedBy: ['storeId', 'paymentId'],
  },
  {
    name: 'one event of a store',
    collection: 'webhook_deliveries',
    filter: { _id: eventId(target), storeId: store(target) },
    indexedBy: ['_id', 'storeId'],
  },
  {
    // The dispatcher's stall check (stall-sweep.ts), once a minute: not the Events API, the same log.
    name: 'the deliveries the stall check looks at in one minute',
    collection: 'webhook_deliveries',
    filter: { checkOn: checkMinute(target) },
    indexedBy: ['checkOn'],
  },
  {
    name: "an event's attempts",
    collection: 'webhook_attempts',
    filter: { eventId: eventId(target) },
    indexedBy: ['eventId'],
  },
];

/**
 * On FerretDB over PostgreSQL every query of the Events API is pushed down and planned as a scan
 * of a GIN index the stack makes from EqualityIndexedFields, never a sequential scan, on a few
 * thousand deliveries (for find, and for the aggregate behind countDocuments). On MongoDB the
 * delivery log's schema declares the matching compound indexes.
 */
describe('Events API queries on FerretDB/PostgreSQL', () => {
  let stack: PrivateStack;
  let mongo: MongoClient;

  beforeAll(async () => {
    stack = await startPrivateStack({ services: [], natsUrl: sharedStack().natsUrl });
    mongo = new MongoClient(stack.mongoUrl);
    await mongo.connect();
    const deliveries = Array.from({ length: DELIVERIES }, (_, i) => ({
      _id: eventId(i),
      storeId: store(i),
      paymentId: payment(i),
      type: type(i),
      status: i % 50 === 0 ? 'pending' : 'delivered',
      checkOn: i % 50 === 0 ? checkMinute(i) : null,
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1_000),
    }));
    const attempts = deliveries.map((d) => ({ _id: `${d._id}:1:1`, eventId: d._id, paymentId: d.paymentId, run: 1 }));
    for (let i = 0; i < DELIVERIES; i += 500) {
      await mongo
        .db()
        .collection<Document & { _id: string }>('webhook_deliveries')
        .insertMany(deliveries.slice(i, i + 500));
      await mongo
        .db()
        .collection<Document & { _id: string }>('webhook_attempts')
        .insertMany(attempts.slice(i, i + 500));
    }
    await mongo
      .db()
      .command({ analyze: 'webhook_deliveries' })
      .catch(() => undefined);
  }, 120_000);

  afterAll(async () => {
    await mongo?.close();
    await stack?.stop();
  });

  describe.each(queries)('$name', (query) => {
    const indexes = query.indexedBy.map((field) => equalityIndexName(query.collection, field));
    it('is planned as a scan of a listed index (find and count)', async () => {
      expectServedByIndex(await explain(mongo.db(), { find: query.collection, filter: query.filter }), indexes);
      expectServedByIndex(await explain(mongo.db(), countCommand(query.collection, query.filter)), indexes);
    });
  });
});
