import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent, Document } from 'mongodb';
import mongoose from 'mongoose';
import { DATABASE_CLIENT_OPTIONS } from '@pix/runtime';
import { createLogger } from '@pix/observability';
import { GatewayStorage, hashToken } from '../../services/gateway/src/storage';
import { PaymentModel } from '../../services/payments/src/model';
import { listKey, statusKey } from '../../services/payments/src/list-page';
import { scopeOf } from '../../services/payments/src/payment-storage';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { transition } from '../../services/payments/src/transitions';
import { ReconciliationCursor } from '../../services/pix-provider-adapter/src/reconciliation-cursor';
import { SandboxBooks, SandboxInfractions } from '../../services/psp-simulator/src/books';
import {
  DeliveryLog,
  deliveriesOf,
  deliveriesOfPayments,
  findDelivery,
  findStoreDelivery,
  storeDeliveries,
  storeDeliveriesSince,
} from '../../services/webhook-dispatcher/src/delivery-log';
import { pendingPaymentDoc } from './payment-fixture';
import { analyzeEngine, explain, readsOf, scannedIndexes } from '../support/explain';
import { sharedStack } from '../support/stack';
import { testSealer } from '../support/sealer';

/** Enough documents per collection that the planner's choice is the one real data gets. */
const SEEDED = 3_000;
const STORES = 30;
const HOUR_MS = 60 * 60 * 1000;
const storeOf = (i: number) => `store-${i % STORES}`;
const testOf = (i: number) => ({ storeId: storeOf(i), livemode: false });
const liveOf = (i: number) => ({ storeId: storeOf(i), livemode: true });
const paymentOf = (i: number) => `pay-${i}`;
/** One payment in three is a live one. */
const liveAt = (i: number) => i % 3 === 1;
const DISPUTES_INDEX = 'storeId_1_dispute.status_1';
const eventOf = (i: number) => `evt_${i.toString(16).padStart(32, '0')}`;

/** What the driver sends that reads or finds documents; inserts and index builds read none. */
const READING = new Set(['find', 'aggregate', 'count', 'update', 'delete', 'findAndModify']);

/** The part of a sent command that says what it reads (not the session, the cluster time, …). */
function readCommand(event: CommandStartedEvent): Document[] {
  const c = event.command;
  const given = (fields: Document) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (c.find) return [given({ find: c.find, filter: c.filter, sort: c.sort, skip: c.skip, limit: c.limit })];
  if (c.aggregate) return [{ aggregate: c.aggregate, pipeline: c.pipeline, cursor: {} }];
  if (c.count) return [given({ count: c.count, query: c.query })];
  return readsOf(c);
}

/**
 * Every query the storage modules send on a hot path, captured from the driver as they send it
 * (command monitoring) and explained on the local engine (FerretDB 2 on DocumentDB, PostgreSQL's
 * plan): each is a scan of one of its collection's indexes, the ones the schemas declare, and none
 * reads a table sequentially. A write is explained by the read that finds its document.
 */
describe('every hot query is served by an index of its schema', () => {
  const sent: CommandStartedEvent[] = [];
  const logger = createLogger('test', 'silent');
  /** A store of thousands, so that the list takes its windowed path. */
  // What they publish, views included, is not what this test looks at.
  const noViews = { write: () => Promise.resolve() };
  const payments = new PaymentStore(
    async () => undefined,
    async () => 5_000,
    logger,
    noViews,
  );
  const smallStore = new PaymentStore(
    async () => undefined,
    async () => 10,
    logger,
    noViews,
  );
  const gateway = new GatewayStorage(testSealer());
  const books = new SandboxBooks();
  let infractions: SandboxInfractions;
  const deliveryLog = new DeliveryLog({ retentionMs: HOUR_MS, stallAfterMs: 2 * 60_000, leaseMs: 5_000 });

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/hot_queries'), DATABASE_CLIENT_OPTIONS);
    mongoose.connection.getClient().on('commandStarted', (event: CommandStartedEvent) => sent.push(event));
    await Promise.all([
      syncPaymentIndexes(),
      DeliveryLog.open({ retentionMs: HOUR_MS, stallAfterMs: 2 * 60_000, leaseMs: 5_000 }),
      SandboxBooks.open(),
      SandboxInfractions.open(books).then((opened) => (infractions = opened)),
      ReconciliationCursor.open('test'),
      GatewayStorage.open(testSealer()),
    ]);
    const now = Date.now();
    const seeded = Array.from({ length: SEEDED }, (_, i) => i);
    await PaymentModel.collection.insertMany(
      seeded.map((i) => {
        const doc = pendingPaymentDoc({
          _id: paymentOf(i),
          storeId: storeOf(i),
          // Every store has payments of both modes, each mode's list a range of its own keys.
          livemode: liveAt(i),
          createdAt: new Date(now - i * 60_000),
        });
        return {
          ...doc,
          listKey: listKey(scopeOf(doc), doc.createdAt, doc._id),
          statusKey: statusKey(scopeOf(doc), doc.status, doc.createdAt, doc._id),
          // What its last write owed stays in a payment, naming its writer (long gone).
          outbox: ['all', 'pending'].map((key) => ({
            subject: `payments.counts.${storeOf(i)}.${key}`,
            msgId: `count:${paymentOf(i)}:1:${key}`,
            increment: 1,
            at: doc.createdAt,
            by: 'writer_seeded',
          })),
        } as never;
      }),
    );
    await mongoose.connection.db!.collection('webhook_deliveries').insertMany(
      seeded.map((i) => ({
        _id: eventOf(i),
        paymentId: paymentOf(i >> 1),
        storeId: storeOf(i),
        ...(liveAt(i >> 1) && { livemode: true }),
        type: i % 2 ? 'payment.status_changed' : 'payment.created',
        sequence: (i % 2) + 1,
        status: i % 50 ? 'delivered' : 'pending',
        run: 1,
        claimed: 1,
        runAttempts: 1,
        earlierRunsAttempts: 0,
        attempts: [{ run: 1, attempt: 1, key: '1:1', at: new Date(now - i * 1000), outcome: 'success' }],
        checkAt: i % 50 ? null : new Date(now + i * 1000),
        stallChecks: 0,
        expiresAt: i % 50 ? new Date(now + HOUR_MS) : null,
        createdAt: new Date(now - i * 1000),
      })) as never[],
    );
    await mongoose.connection.db!.collection('sandbox_psp_cobs').insertMany(
      seeded.map((i) => ({
        _id: `tx${i}`,
        cob: {},
        amountCents: 1000,
        expiresAt: new Date(now + HOUR_MS),
        pix: i % 2 ? { endToEndId: `E${i}`, amountCents: 1000, paidAt: new Date(), held: true, notified: true } : null,
        analysis: null,
        ...(i % 2 && { latePix: [], pixIds: [`E${i}`] }),
        failNextRefund: null,
      })) as never[],
    );
    await mongoose.connection
      .db!.collection('sandbox_psp_pix')
      .insertMany(seeded.map((i) => ({ _id: `E${i}`, txid: `tx${i}`, paidAt: new Date(now - i * 1000) })) as never[]);
    await mongoose.connection.db!.collection('sandbox_psp_refunds').insertMany(
      seeded.map((i) => ({
        _id: `E${i}/dev${i}`,
        endToEndId: `E${i}`,
        devolucao: { id: `dev${i}`, status: 'DEVOLVIDO' },
        amountCents: 100,
        requests: 1,
        pix: {},
        planned: { status: 'DEVOLVIDO', motivo: null },
        notified: true,
      })) as never[],
    );
    await mongoose.connection.db!.collection('tokens').insertMany(
      seeded.map((i) => ({
        _id: `hash-${i}`,
        storeId: storeOf(i),
        createdAt: new Date(),
        expiresAt: null,
      })) as never[],
    );
    await mongoose.connection.db!.collection('stores').insertMany(
      seeded.map((i) => ({
        _id: `seeded-store-${i}`,
        name: 's',
        active: true,
        webhookSecrets: [],
        createdAt: new Date(),
      })) as never[],
    );
    await analyzeEngine(sharedStack().postgresUrl!);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([payments.flush(), smallStore.flush()]);
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  /**
   * Runs an operation and explains every read it sent (of `only` that collection, when given): each
   * must scan an index of its collection.
   */
  async function expectIndexServed(operation: () => Promise<unknown>, only?: string, index?: string): Promise<void> {
    sent.length = 0;
    await operation();
    const reads = sent
      .filter((e) => READING.has(e.commandName) && (only === undefined || e.command[e.commandName] === only))
      .flatMap(readCommand);
    expect(reads.length).toBeGreaterThan(0);
    for (const command of reads) {
      const nodes = await explain(mongoose.connection.db!, command).catch((err: Error) => {
        throw new Error(`explain of ${JSON.stringify(command)}: ${err.message}`);
      });
      const scanned = scannedIndexes(nodes);
      if (scanned.length === 0)
        throw new Error(`not served by an index: ${JSON.stringify(command)}\n${JSON.stringify(nodes)}`);
      if (index !== undefined) expect(scanned).toContain(index);
    }
  }

  describe('payments', () => {
    const target = 1_234;
    it.each([
      ['get within a store', () => payments.forStore(testOf(target), paymentOf(target))],
      ['get within a store, live', () => payments.forStore(liveOf(target + 1), paymentOf(target + 1))],
      ['get by id', () => payments.byId(paymentOf(target))],
      ['the charge of a txid', async () => payments.byTxid((await payments.byId(paymentOf(target)))!.txid)],
      ["a large store's page, windowed", () => payments.list(testOf(target), { page: 1, limit: 50 })],
      ["a large store's live page, windowed", () => payments.list(liveOf(target), { page: 1, limit: 50 })],
      [
        "a large store's page of one status",
        () => payments.list(testOf(target), { page: 2, limit: 20, status: 'pending' }),
      ],
      [
        "a large store's live page of one status",
        () => payments.list(liveOf(target), { page: 1, limit: 20, status: 'pending' }),
      ],
      ["a small store's page", () => smallStore.list(testOf(target), { page: 1, limit: 50 })],
      ["a small store's live page", () => smallStore.list(liveOf(target), { page: 1, limit: 50 })],
    ])('%s', async (_name, operation) => expectIndexServed(operation));

    // The disputes' index holds the disputed payments only (a create writes no entry in it): both
    // queries imply its filter, so MongoDB's planner may use it, and DocumentDB does.
    it.each([
      ["a store's open disputes (Contestações)", () => payments.openDisputes(testOf(target), 200)],
      ["a store's disputes (a statement's at risk)", () => payments.disputesSince(testOf(target), new Date(0))],
    ])('%s, on the partial index of disputed payments', async (_name, operation) => {
      const index = (await PaymentModel.collection.indexes()).find((i) => i.name === DISPUTES_INDEX);
      expect(index?.partialFilterExpression).toEqual({ 'dispute.status': { $exists: true } });
      await expectIndexServed(operation, 'payments', DISPUTES_INDEX);
    });

    it('a change', async () => {
      const doc = pendingPaymentDoc({ storeId: storeOf(7) });
      await payments.insert(doc, []);
      await expectIndexServed(() => transition(payments, doc._id, 'pending', 'approved'));
    });

    // Its writers' records are a handful of documents: only its reads of payments matter.
    it("the outbox relay: a silent writer's messages, and those from before writers were named", async () => {
      const silent = new PaymentStore(
        async () => undefined,
        async () => 0,
        logger,
        noViews,
      );
      await silent.relay(HOUR_MS);
      await silent.insert(pendingPaymentDoc({ storeId: storeOf(8) }), []);
      await new Promise((resolve) => setTimeout(resolve, 20));
      sent.length = 0;
      await expectIndexServed(async () => {
        expect(await payments.relay(10)).toEqual({ relayed: 1, waiting: 0 });
      }, 'payments');
    });
  });

  describe('webhook delivery log', () => {
    const paymentId = `pay-log-${randomUUID()}`;
    const event = (n: number) =>
      ({
        eventId: eventOf(SEEDED + n),
        sequence: n,
        occurredAt: new Date().toISOString(),
        paymentId,
        storeId: storeOf(3),
        webhookUrl: 'https://example.com/h',
        body: { id: paymentId, storeId: storeOf(3), event: n === 1 ? 'payment.created' : 'payment.status_changed' },
      }) as never;
    const first = { eventId: eventOf(SEEDED + 1), paymentId, run: 1, attempt: 1 };
    const result = { outcome: 'failure' as const, statusCode: 503, latencyMs: 3, error: 'HTTP 503' };

    it('takes an event in and makes its attempts', () =>
      expectIndexServed(async () => {
        await deliveryLog.record(event(1), 'https://example.com/h', new Date(), true);
        await deliveryLog.record(event(2), 'https://example.com/h', new Date(), false);
        await deliveryLog.earlierDeliveries(paymentId, 2);
        await deliveryLog.waitBehind(paymentId, 2);
        await deliveryLog.successorOf(paymentId, 1);
        await deliveryLog.findClaim(first.eventId, 1, 1);
        await deliveryLog.extendLease(first.eventId, 1, 1, new Date());
        await deliveryLog.conclude(first, result, { next: 'retry', at: new Date() });
        await deliveryLog.claim({ ...first, attempt: 2 });
        await deliveryLog.conclude({ ...first, attempt: 2 }, { ...result, outcome: 'success' }, { next: 'delivered' });
        await deliveryLog.claim({ eventId: eventOf(SEEDED + 2), run: 1, attempt: 1 });
        await deliveryLog.conclude({ eventId: eventOf(SEEDED + 2), run: 1, attempt: 1 }, result, {
          next: 'dead',
          reason: 'exhausted',
        });
      }));

    it('answers the Events API and the admin commands', () =>
      expectIndexServed(async () => {
        await storeDeliveries(storeOf(3), false, { page: 1, limit: 20 });
        await storeDeliveries(storeOf(3), true, { page: 1, limit: 20 });
        await storeDeliveries(storeOf(3), false, { page: 1, limit: 20, type: 'payment.created' });
        await storeDeliveries(storeOf(3), false, { page: 1, limit: 20, paymentId });
        await findStoreDelivery(storeOf(3), false, first.eventId);
        await findStoreDelivery(storeOf(3), true, first.eventId);
        await deliveriesOf(paymentId);
        const doc = await findDelivery(first.eventId);
        await deliveryLog.startReplay(doc!);
      }));

    it("answers the dashboard's webhook column and failure rates", () =>
      expectIndexServed(async () => {
        await deliveriesOfPayments(storeOf(3), false, [paymentId, `pay-${randomUUID()}`]);
        await deliveriesOfPayments(storeOf(3), true, [paymentId, `pay-${randomUUID()}`]);
        await storeDeliveriesSince(storeOf(3), false, new Date(Date.now() - 24 * HOUR_MS), 10_000);
        await storeDeliveriesSince(storeOf(3), true, new Date(Date.now() - 24 * HOUR_MS), 10_000);
      }));

    it('runs the stall check', () =>
      expectIndexServed(async () => {
        const due = await deliveryLog.dueForCheck(new Date(), 100);
        for (const doc of due.slice(0, 3)) await deliveryLog.postponeCheck(doc, new Date(Date.now() + HOUR_MS));
      }));
  });

  describe('stores, tokens and idempotency keys (gateway)', () => {
    it('authenticates, administers and claims keys', () =>
      expectIndexServed(async () => {
        const store = await gateway.stores.create('explained');
        await gateway.tokens.find(hashToken(store.token));
        await gateway.stores.isActive(store.storeId);
        await gateway.stores.name(store.storeId);
        await gateway.stores.webhookSecrets(store.storeId, false);
        await gateway.stores.setActive(store.storeId, false);
        const { token } = await gateway.tokens.issue(store.storeId, false);
        await gateway.tokens.revoke(token);
        await gateway.stores.rotateWebhookSecret(store.storeId, false);
        await gateway.stores.resealWebhookSecrets();
        await gateway.stores.checkWebhookSecrets();
        const input = { amountCents: 1000, email: null, observation: null, webhookUrl: null, expiresInSeconds: null };
        await gateway.idempotencyKeys.claim(store.storeId, 'key', { operation: 'create', input });
        await gateway.idempotencyKeys.claim(store.storeId, 'key', { operation: 'create', input });
        const refund = { operation: 'refund' as const, paymentId: 'p1', input: { amountCents: null, reason: null } };
        await gateway.idempotencyKeys.claim(store.storeId, 'key', refund);
        await gateway.idempotencyKeys.claim(store.storeId, 'key', refund);
      }));
  });

  describe('sandbox PSP', () => {
    it('takes charges, Pix, analyses and refunds', () =>
      expectIndexServed(async () => {
        const now = new Date();
        await books.putCharge('tx-new', {
          cob: { status: 'ATIVA' } as never,
          amountCents: 1000,
          expiresAt: new Date(now.getTime() + HOUR_MS),
        });
        await books.findCharge('tx-new');
        await books.recordPix(
          'tx-new',
          { endToEndId: 'E-new', amountCents: 1000, paidAt: now, held: true, notified: false },
          now,
        );
        await books.markNotified('tx-new', 'pix');
        await books.recordAnalysis('tx-new', { outcome: 'REJEITADO', decidedAt: now, notified: false });
        await books.recordLatePix('tx-new', {
          endToEndId: 'E-late',
          amountCents: 10,
          paidAt: now,
          held: false,
          notified: false,
        });
        await books.markLateNotified('tx-new', 'E-late');
        await books.ledgerPix('tx-new', {
          endToEndId: 'E-new',
          amountCents: 1000,
          paidAt: now,
          held: true,
          notified: true,
        });
        await books.chargesOwingCallbacks();
        await books.pixOf('E-new');
        await books.failNextRefund('tx-new', 'motivo');
        await books.takeFailNextRefund('tx-new');
        await books.removeCharge('tx-new');
        await books.repeatRefund('E-new/dev1');
        await books.putRefund('E-new/dev1', {
          endToEndId: 'E-new',
          devolucao: { status: 'EM_PROCESSAMENTO' } as never,
          amountCents: 1000,
          pix: { endToEndId: 'E-new', txid: 'tx-new', valor: '10.00', horario: now.toISOString() },
          planned: { status: 'DEVOLVIDO', motivo: null },
          notified: false,
        });
        await books.refundsOfPix({}, 'E-new'); // a charge without marks: the refunds are read
        await books.settleRefund('E-new/dev1', now);
        await books.markRefundNotified('E-new/dev1');
        await books.refundsOwingCallbacks();
        await books.findRefund('E-new/dev1');
      }));

    it('lists the Pix received in a window, a page at a time, with their charges and refunds', () =>
      expectIndexServed(async () => {
        const now = Date.now();
        const page = await books.receivedPixPage({ from: new Date(now - 120_000), to: new Date(now) }, 1, 50);
        expect(page.lines).toHaveLength(50);
        await books.refundsOfPixes(page.lines.map((line) => line._id));
      }));

    it('lists, reads, answers and decides infractions', async () => {
      // Infractions against E-new (received in the first test), one a minute over five hours: a window is a range.
      const now = Date.now();
      const claim = {
        amountCents: 100,
        motivo: 'Não reconheço.',
        tipoSituacao: 'golpe',
        prazo: new Date(now + HOUR_MS),
      };
      for (let batch = 0; batch < 6; batch++) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            infractions.file('E-new', claim, new Date(now - (batch * 50 + i) * 60_000)),
          ),
        );
      }
      await expectIndexServed(async () => {
        await infractions.list({ from: new Date(now - 2 * HOUR_MS), to: new Date(now - HOUR_MS) }, 0, 100);
        await infractions.find('INF-none');
        await infractions.defend('INF-none', { analise: 'rejeitado', justificativa: 'Entregue.' }, new Date(now));
        await infractions.decide('INF-none', 'ACEITA', new Date(now));
      });
    });
  });

  describe('pix-provider-adapter', () => {
    it("reads and moves each connection's reconciliation cursor by _id", async () => {
      const cursors = await Promise.all([
        ReconciliationCursor.open('test'),
        ReconciliationCursor.open('live'),
        ReconciliationCursor.open('test', undefined, 'infractions'),
      ]);
      await expectIndexServed(async () => {
        for (const cursor of cursors) {
          await cursor.advance(new Date(), new Date());
          await cursor.read();
        }
      });
    });
  });
});
