import { EqualityIndexedFields, PAYMENT_STATUSES } from '@pix/contracts';
import { equalityIndexName } from '@pix/devstack';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { Client } from 'pg';
import { eventually } from '../support/api';
import { countCommand, expectServedByIndex, explain } from '../support/explain';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';

const STORES = 40;
const PAYMENTS = 3_000;
/** More than the five custom plans after which PostgreSQL may cache a generic one (the stack forbids it). */
const RUNS = 8;

const id = (i: number) => `pay_${String(i).padStart(8, '0')}`;
const store = (i: number) => `store_${String(i % STORES).padStart(3, '0')}`;
const txid = (i: number) => `TX${String(i).padStart(30, '0')}`;

function payment(i: number): StoredPayment {
  return {
    _id: id(i),
    storeId: store(i),
    status: PAYMENT_STATUSES[i % PAYMENT_STATUSES.length],
    amountCents: 1_000 + i,
    createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1_000),
    txid: txid(i),
    email: `buyer${i}@example.com`,
    outbox: {},
    outboxPending: 0,
  };
}

/** A payment as stored (ids are strings, not ObjectIds). */
interface StoredPayment extends Document {
  _id: string;
}

/** One hot query of the payments service, and the listed fields whose index may serve it. */
interface HotQuery {
  name: string;
  filter: Document;
  indexedBy: string[];
  /** Sends the query as the service does; resolves to one entry per database command. */
  run: (payments: Collection<StoredPayment>) => Promise<unknown[]>;
}

const target = 1_234;
const hotQueries: HotQuery[] = [
  {
    // services/payments/src/queries.ts getPayment
    name: 'get by id within a store',
    filter: { _id: { $eq: id(target) }, storeId: { $eq: store(target) } },
    indexedBy: ['_id', 'storeId'],
    run: async (payments) => [await payments.findOne({ _id: { $eq: id(target) }, storeId: { $eq: store(target) } })],
  },
  {
    // listPayments: the page and its total
    name: "a store's list",
    filter: { storeId: { $eq: store(target) } },
    indexedBy: ['storeId'],
    run: (payments) =>
      Promise.all([
        payments.find({ storeId: { $eq: store(target) } }).toArray(),
        payments.countDocuments({ storeId: { $eq: store(target) } }),
      ]),
  },
  {
    name: "a store's list filtered by status",
    filter: { storeId: { $eq: store(target) }, status: { $eq: PAYMENT_STATUSES[0] } },
    indexedBy: ['storeId'],
    run: (payments) =>
      Promise.all([
        payments.find({ storeId: { $eq: store(target) }, status: { $eq: PAYMENT_STATUSES[0] } }).toArray(),
        payments.countDocuments({ storeId: { $eq: store(target) }, status: { $eq: PAYMENT_STATUSES[0] } }),
      ]),
  },
  {
    // services/payments/src/pix-events.ts: the PSP's event names the charge by txid
    name: 'the charge of a txid',
    filter: { txid: { $eq: txid(target) } },
    indexedBy: ['txid'],
    run: async (payments) => [await payments.findOne({ txid: { $eq: txid(target) } })],
  },
];

/**
 * On FerretDB over PostgreSQL the hot queries of the payments collection are served by the GIN
 * expression indexes the stack makes from EqualityIndexedFields, on a few thousand payments:
 * PostgreSQL's plan for FerretDB's query (through FerretDB's explain, for find and for the count's
 * aggregate) uses one of them and no sequential scan, and the queries the driver really sends
 * (FerretDB runs them as cached prepared statements) scan those indexes and never read the table
 * sequentially.
 */
describe('hot payment queries on FerretDB/PostgreSQL', () => {
  let stack: PrivateStack;
  let mongo: MongoClient;
  let pg: Client;
  let table: string;

  beforeAll(async () => {
    stack = await startPrivateStack({ services: [], natsUrl: sharedStack().natsUrl });
    mongo = new MongoClient(stack.mongoUrl);
    await mongo.connect();
    const docs = Array.from({ length: PAYMENTS }, (_, i) => payment(i));
    for (let i = 0; i < docs.length; i += 500) {
      await mongo
        .db()
        .collection<StoredPayment>('payments')
        .insertMany(docs.slice(i, i + 500));
    }
    pg = new Client({ connectionString: stack.postgresUrl });
    await pg.connect();
    const meta = await pg.query<{ table: string }>(
      `SELECT _jsonb->>'table' AS table FROM pix._ferretdb_database_metadata WHERE _jsonb->>'_id' = 'payments'`,
    );
    table = meta.rows[0]!.table;
    await pg.query(`ANALYZE pix.${pg.escapeIdentifier(table)}`);
  }, 120_000);

  afterAll(async () => {
    await pg?.end();
    await mongo?.close();
    await stack?.stop();
  });

  async function scanCounts(): Promise<{ seqTuplesRead: number; indexScans: number }> {
    const tableStats = await pg.query<{ seq_tup_read: string }>(
      `SELECT seq_tup_read FROM pg_stat_user_tables WHERE schemaname = 'pix' AND relname = $1`,
      [table],
    );
    const listed = EqualityIndexedFields.payments.map((field) => equalityIndexName('payments', field));
    const indexStats = await pg.query<{ scans: string | null }>(
      `SELECT sum(idx_scan) AS scans FROM pg_stat_user_indexes
        WHERE schemaname = 'pix' AND relname = $1 AND indexrelname = ANY($2)`,
      [table, listed],
    );
    return { seqTuplesRead: Number(tableStats.rows[0]?.seq_tup_read), indexScans: Number(indexStats.rows[0]?.scans) };
  }

  describe.each(hotQueries)('$name', (query) => {
    const indexes = query.indexedBy.map((field) => equalityIndexName('payments', field));

    it('is planned as a scan of a listed index (find)', async () => {
      expectServedByIndex(await explain(mongo.db(), { find: 'payments', filter: query.filter }), indexes);
    });

    it('is planned as a scan of a listed index (the count of countDocuments)', async () => {
      expectServedByIndex(await explain(mongo.db(), countCommand('payments', query.filter)), indexes);
    });
  });

  it('runs every hot query as index scans, never reading the table sequentially', async () => {
    // CREATE INDEX at the stack's start scanned the then empty table: sequential scans that read
    // no tuple. A query scanning the seeded table would read thousands.
    const before = await scanCounts();
    const payments = mongo.db().collection<StoredPayment>('payments');
    let commands = 0;
    for (const query of hotQueries) {
      for (let run = 0; run < RUNS; run++) commands += (await query.run(payments)).length;
    }
    // Each command scans at least one listed index. A backend reports its statistics when it has
    // been idle for a while (up to ten seconds), so wait for all of them.
    const after = await eventually(scanCounts, (counts) => counts.indexScans - before.indexScans >= commands, 20_000);
    expect(after.seqTuplesRead).toBe(before.seqTuplesRead);
  }, 60_000);
});
