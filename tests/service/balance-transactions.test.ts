import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import { DATABASE_CLIENT_OPTIONS } from '@pix/runtime';
import {
  dayStart,
  EXPORT_PAGE_LIMIT,
  nextDay,
  statementDay,
  type BalanceExportPage,
  type ExportCursor,
} from '@pix/contracts';
import { createLogger } from '@pix/observability';
import {
  BalanceTransactions,
  MovementModel,
  storedMovement,
  syncBalanceIndexes,
} from '../../services/payments/src/balance-store';
import { withMovements } from '../../services/payments/src/balance-transactions';
import type { BalanceMovement, OutboxMessage } from '../../services/payments/src/model';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { exportBalancePage } from '../../services/payments/src/statement';
import { transition } from '../../services/payments/src/transitions';
import { writeStatementCsv } from '../../services/gateway/src/statement-csv';
import { pendingPaymentDoc } from './payment-fixture';
import { analyzeEngine, explain, readsOf, scannedIndexes } from '../support/explain';
import { sharedStack } from '../support/stack';

/**
 * Balance transactions on the real engine: a payment write that moves money records its movement
 * once (whatever is published again), at one command per write; every read of the list, the
 * statement and the CSV is a range on an index the schema declares; and a day of 100,000 movements
 * leaves as a CSV a page at a time.
 */
describe('balance transactions', () => {
  const logger = createLogger('test', 'silent');
  const balance = new BalanceTransactions(logger);
  const natsMessages: OutboxMessage[] = [];
  const publish = withMovements(
    async (messages) => void natsMessages.push(...messages),
    (m) => balance.record(m),
  );
  // The read model is not this test's: its views go nowhere.
  const store = new PaymentStore(publish, async () => 0, logger, { write: () => Promise.resolve() });
  const sent: CommandStartedEvent[] = [];
  const listen = (event: CommandStartedEvent) => sent.push(event);
  const storeId = `statement-${randomUUID()}`;

  beforeAll(async () => {
    await mongoose.connect(
      sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/balance_transactions'),
      DATABASE_CLIENT_OPTIONS,
    );
    mongoose.connection.getClient().on('commandStarted', listen);
    await syncPaymentIndexes();
    await syncBalanceIndexes();
  });
  afterAll(async () => {
    mongoose.connection.getClient().off('commandStarted', listen);
    await store.flush();
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  const commandsOn = (collection: string) =>
    sent.filter((e) => (e.command as Record<string, unknown>)[e.commandName] === collection).map((e) => e.commandName);

  it('a Pix received is recorded with its write, once, at one command on balance_transactions', async () => {
    const doc = pendingPaymentDoc({ storeId, amountCents: 4250 });
    await store.insert(doc, []);
    await store.flush();
    sent.length = 0;
    const paidAt = new Date();
    const result = await transition(store, doc._id, 'pending', 'approved', {
      extra: { paidEndToEndId: `E${doc._id.slice(0, 8)}`, paidAmountCents: 4250, paidAt },
    });
    expect(result.changed).toBe(true);
    await store.flush();
    // The payment's read and its one update, as before (a publish writes nothing back); the movement's one upsert.
    expect(commandsOn('payments')).toEqual(['find', 'update']);
    expect(commandsOn('balance_transactions')).toEqual(['update']);
    const recorded = await MovementModel.find({ paymentId: doc._id }).lean();
    expect(recorded).toEqual([
      expect.objectContaining({
        _id: `${doc._id}:pix_received:E${doc._id.slice(0, 8)}`,
        type: 'pix_received',
        amountCents: 4250,
        storeId,
        livemode: false,
        connection: 'test',
        endToEndId: `E${doc._id.slice(0, 8)}`,
        createdAt: paidAt,
        day: statementDay(paidAt),
      }),
    ]);
    // No movement goes to JetStream.
    expect(natsMessages.some((m) => m.movement)).toBe(false);
  });

  it('a movement published again (the relay, a retry) writes nothing the second time', async () => {
    const moved: BalanceMovement = {
      id: `again-${randomUUID()}:pix_received:E1`,
      storeId,
      livemode: false,
      type: 'pix_received',
      amountCents: 100,
      paymentId: randomUUID(),
      refundId: null,
      endToEndId: 'E1',
      origin: null,
      nature: null,
      connection: 'test',
      createdAt: new Date(),
    };
    await balance.record([moved]);
    const first = await MovementModel.findById(moved.id).lean();
    await Promise.all([balance.record([moved]), balance.record([{ ...moved, amountCents: 999 }])]);
    expect(await MovementModel.countDocuments({ _id: moved.id })).toBe(1);
    expect(await MovementModel.findById(moved.id).lean()).toEqual(first);
  });

  it('totals a list by a live count of today and a kept count of the days before, a minute at most behind', async () => {
    const scope = { storeId: `totals-${randomUUID()}`, livemode: false };
    const now = new Date();
    const dayBefore = new Date(now.getTime() - 24 * 60 * 60_000);
    const movement = (n: number, createdAt: Date): BalanceMovement => ({
      id: `${scope.storeId}:${n}`,
      storeId: scope.storeId,
      livemode: false,
      type: 'pix_received',
      amountCents: 1000,
      paymentId: randomUUID(),
      refundId: null,
      endToEndId: `E${n}`,
      origin: null,
      nature: null,
      connection: 'test',
      createdAt,
    });
    await balance.record([1, 2, 3].map((n) => movement(n, dayBefore)).concat([4, 5].map((n) => movement(n, now))));
    const total = async (reader = balance) => (await reader.list(scope, { page: 1, limit: 2 }, now)).total;
    sent.length = 0;
    expect(await total()).toBe(5);
    // The days before today counted once, then kept: the next page counts today only.
    expect(commandsOn('balance_transactions').filter((c) => c === 'aggregate')).toHaveLength(2);
    sent.length = 0;
    expect(await total()).toBe(5);
    expect(commandsOn('balance_transactions').filter((c) => c === 'aggregate')).toHaveLength(1);

    await balance.record([movement(6, now)]);
    expect(await total()).toBe(6);
    // A movement recorded late for a day before: this process shows it once its kept count expires;
    // another (a replica, a restart) at once.
    await balance.record([movement(7, dayBefore)]);
    expect(await total()).toBe(6);
    expect(await total(new BalanceTransactions(logger))).toBe(7);
  });

  describe('reads served by an index', () => {
    /** Every read `operation` sends is a scan of an index of its collection. */
    async function expectIndexServed(operation: () => Promise<unknown>): Promise<string[]> {
      sent.length = 0;
      await operation();
      const reads = sent
        .filter((e) => ['find', 'aggregate', 'count', 'update'].includes(e.commandName))
        .flatMap((e) => {
          const c = e.command;
          const given = (fields: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null));
          if (c.find) return [given({ find: c.find, filter: c.filter, sort: c.sort, skip: c.skip, limit: c.limit })];
          if (c.aggregate) return [{ aggregate: c.aggregate, pipeline: c.pipeline, cursor: {} }];
          if (c.count) return [given({ count: c.count, query: c.query })];
          return readsOf(c);
        });
      expect(reads.length).toBeGreaterThan(0);
      const indexes: string[] = [];
      for (const command of reads) {
        const scanned = scannedIndexes(await explain(mongoose.connection.db!, command));
        if (scanned.length === 0) throw new Error(`not served by an index: ${JSON.stringify(command)}`);
        indexes.push(...scanned);
      }
      return indexes;
    }

    const today = statementDay(new Date());

    beforeAll(async () => {
      const now = Date.now();
      // Thousands of movements of thirty stores over the last days, so the plans are real data's.
      await MovementModel.collection.insertMany(
        Array.from({ length: 3000 }, (_, i) =>
          storedMovement(
            {
              id: `seed-${i}`,
              storeId: `seeded-${i % 30}`,
              livemode: i % 3 === 1,
              type: i % 4 === 0 ? 'refund' : 'pix_received',
              amountCents: i % 4 === 0 ? -500 : 1000,
              paymentId: randomUUID(),
              refundId: null,
              endToEndId: `E${i}`,
              origin: null,
              nature: null,
              connection: i % 3 === 1 ? 'live' : 'test',
              createdAt: new Date(now - i * 60_000),
            },
            new Date(),
          ),
        ) as never[],
      );
      await analyzeEngine(sharedStack().postgresUrl!);
    }, 60_000);

    it.each([
      ['a page of a day', () => balance.list({ storeId: 'seeded-3', livemode: false }, { page: 1, limit: 50 })],
      [
        'a page of one type over days',
        () =>
          balance.list(
            { storeId: 'seeded-4', livemode: true },
            { page: 2, limit: 20, type: 'refund', from: '2026-01-01', to: today },
          ),
      ],
      ["a day's statement", () => balance.totals({ storeId: 'seeded-5', livemode: false }, today, today)],
      [
        "a month's statement",
        () => balance.totals({ storeId: 'seeded-5', livemode: false }, `${today.slice(0, 8)}01`, today),
      ],
      [
        'a page of the CSV',
        () => balance.exportPage({ storeId: 'seeded-6', livemode: false }, today, today, null, 1000),
      ],
      ["a window of the nightly check's day", () => balance.within(false, dayStart(today), dayStart(nextDay(today)))],
      ["the nightly check's Pix", () => balance.ofPix(false, ['E1', 'E2', 'E3'])],
    ])('%s', async (_name, operation) => {
      const indexes = await expectIndexServed(operation);
      expect(indexes.length).toBeGreaterThan(0);
    });
  });

  it('a day of 100,000 movements leaves as a CSV a page at a time, never more than a page in hand', async () => {
    const big = { storeId: `big-${randomUUID()}`, livemode: false };
    const day = statementDay(new Date(Date.now() - 24 * 60 * 60 * 1000));
    const start = new Date(`${day}T03:00:00.000Z`).getTime();
    const MOVEMENTS = 100_000;
    for (let batch = 0; batch < MOVEMENTS; batch += 5000) {
      await MovementModel.collection.insertMany(
        Array.from({ length: 5000 }, (_, j) => {
          const i = batch + j;
          return storedMovement(
            {
              id: `big-${i}`,
              storeId: big.storeId,
              livemode: false,
              type: 'pix_received',
              amountCents: 1234,
              paymentId: randomUUID(),
              refundId: null,
              endToEndId: `E${i}`,
              origin: null,
              nature: null,
              connection: 'test',
              // Spread over the day, as a busy store's are.
              createdAt: new Date(start + Math.floor((i * 86_400_000) / MOVEMENTS)),
            },
            new Date(),
          );
        }) as never[],
      );
    }
    let pages = 0;
    let inHand = 0;
    let mostInHand = 0;
    let bytes = 0;
    let lines = 0;
    const sink = {
      waiting: [] as (() => void)[],
      write(chunk: string) {
        inHand += chunk.length;
        mostInHand = Math.max(mostInHand, inHand);
        bytes += Buffer.byteLength(chunk);
        lines += chunk.split('\r\n').length - 1;
        // A slow reader: it takes the chunk on the next turn, and says it is full meanwhile.
        setImmediate(() => {
          inHand -= chunk.length;
          for (const drained of this.waiting.splice(0)) drained();
        });
        return false;
      },
      once(_event: 'drain', listener: () => void) {
        this.waiting.push(listener);
      },
    };
    /** What the reader had not taken yet whenever the next page was asked for: the writer waits for it. */
    let mostUntakenAtFetch = 0;
    const began = Date.now();
    const written = await writeStatementCsv(sink, async (cursor: ExportCursor | null): Promise<BalanceExportPage> => {
      pages += 1;
      mostUntakenAtFetch = Math.max(mostUntakenAtFetch, inHand);
      const page = await exportBalancePage(balance, big, { from: day, to: day, cursor, limit: EXPORT_PAGE_LIMIT });
      expect(page.items.length).toBeLessThanOrEqual(EXPORT_PAGE_LIMIT);
      return page;
    });
    const tookMs = Date.now() - began;
    expect(written).toBe(MOVEMENTS);
    expect(lines).toBe(MOVEMENTS + 1);
    expect(pages).toBeGreaterThanOrEqual(MOVEMENTS / EXPORT_PAGE_LIMIT);
    // The reader never holds more than a page's lines (about 100 bytes each) and the header.
    expect(mostInHand).toBeLessThan(EXPORT_PAGE_LIMIT * 200);
    // The whole file is about 10 MB, a hundred times what was ever in hand.
    expect(bytes).toBeGreaterThan(9_000_000);
    // Backpressure: no page is read while the reader still has the last one, so memory holds one page.
    expect(mostUntakenAtFetch).toBe(0);
    expect(tookMs).toBeLessThan(120_000);
    console.log(
      `CSV of ${MOVEMENTS} movements: ${pages} pages, ${bytes} bytes, ${tookMs} ms, at most ${mostInHand} characters in hand`,
    );
  }, 300_000);
});
