import { randomUUID } from 'node:crypto';
import { Subjects, txidFor } from '@pix/contracts';
import type { OutboxMessage } from '../model';
import type { PaymentStorage, Publish } from '../payment-storage';
import { paymentDoc } from './flows';

/** What a contract case is given: a storage whose publish the case controls. */
export interface ContractSubject {
  store: PaymentStorage;
}

/**
 * Counts as JetStream's counters would from what was published: each increment once per message
 * id, summed per subject. An implementation that reads its totals from the counters is handed this.
 */
export function countsOf(published: OutboxMessage[]) {
  return async (storeId: string, key: string): Promise<number> => {
    const seen = new Map<string, number>();
    for (const m of published) {
      if (m.increment !== undefined && m.subject === Subjects.paymentCount(storeId, key as never)) {
        seen.set(m.msgId, m.increment);
      }
    }
    return [...seen.values()].reduce((sum, n) => sum + n, 0);
  };
}

/**
 * The protocol every PaymentStorage keeps (payment-storage.ts), as cases that run against any of
 * them: the in-memory one in the unit layer (testing/in-memory-payments.test.ts), PaymentStore on
 * the database in the service layer (tests/service/payment-storage-contract.test.ts). `make` builds
 * a storage that publishes through `publish` and reads its totals from `countsOf` of what it published.
 */
export function describeStorageContract(make: (publish: Publish, published: OutboxMessage[]) => ContractSubject): void {
  const published: OutboxMessage[] = [];
  let failing = false;
  const publish: Publish = async (messages) => {
    if (failing) throw new Error('JetStream unreachable');
    published.push(...messages);
  };
  let store: PaymentStorage;
  const storeId = `contract-${randomUUID()}`;

  beforeAll(() => {
    store = make(publish, published).store;
  });
  beforeEach(() => {
    published.length = 0;
    failing = false;
  });
  afterAll(() => store.flush());

  const created = (id: string): OutboxMessage => ({ subject: 'payments.events.created', msgId: `evt_${id}` });

  it('inserts a payment once, publishing what it owes and its counts; a second insert answers exists', async () => {
    const doc = paymentDoc({ storeId });
    expect(await store.insert(doc, [created(doc._id)])).toBe('created');
    expect(published.map((m) => m.msgId)).toEqual([
      `evt_${doc._id}`,
      `count:${doc._id}:1:all`,
      `count:${doc._id}:1:pending`,
    ]);
    published.length = 0;
    expect(await store.insert({ ...doc, amountCents: 1 }, [created(doc._id)])).toBe('exists');
    expect(published).toEqual([]);
    expect(await store.byId(doc._id)).toMatchObject({ amountCents: doc.amountCents, rev: 1 });
    expect(await store.byTxid(txidFor(doc._id))).toMatchObject({ _id: doc._id });
    expect(await store.forStore({ storeId: storeId, livemode: false }, doc._id)).toMatchObject({ _id: doc._id });
    expect(await store.forStore({ storeId: 'another-store', livemode: false }, doc._id)).toBeNull();
    expect(await store.byId(randomUUID())).toBeNull();
  });

  it('writes a change on the revision decided on; a writer that lost decides again on the payment as it is', async () => {
    const doc = paymentDoc({ storeId, chargeCreated: false });
    await store.insert(doc, []);
    const seen = (await store.byId(doc._id))!;
    published.length = 0;
    await store.write(doc._id, () => ({ set: { chargeCreated: true }, messages: [] }));
    const decidedOn: number[] = [];
    const result = await store.write<'never'>(
      doc._id,
      (current) => {
        decidedOn.push(current.rev);
        return { set: { status: 'approved' }, messages: [created(`${doc._id}-approved`)] };
      },
      seen,
    );
    expect(decidedOn).toEqual([1, 2]);
    expect(result).toMatchObject({ written: true, doc: { status: 'approved', chargeCreated: true, rev: 3 } });
    expect(await store.byId(doc._id)).toMatchObject({ status: 'approved', chargeCreated: true, rev: 3 });
    expect(published.map((m) => m.msgId)).toContain(`evt_${doc._id}-approved`);
    // What this write owes: the counts of revision 3. The relay or an earlier write may publish its
    // own again meanwhile (JetStream keeps one per id); those are not this write's to assert.
    const owed = `count:${doc._id}:3:`;
    expect(published.filter((m) => m.increment !== undefined && m.msgId.startsWith(owed)).map((m) => m.msgId)).toEqual([
      `${owed}pending`,
      `${owed}approved`,
    ]);
  });

  it('hands back why a decision made no change, and not_found for no payment', async () => {
    const doc = paymentDoc({ storeId });
    await store.insert(doc, []);
    published.length = 0;
    expect(await store.write(doc._id, () => ({ skip: 'moved_on' }))).toMatchObject({
      written: false,
      reason: 'moved_on',
      doc: { _id: doc._id, rev: 1 },
    });
    expect(await store.write(randomUUID(), () => ({ set: {}, messages: [] }))).toEqual({
      written: false,
      reason: 'not_found',
      doc: null,
    });
    expect(published).toEqual([]);
  });

  it('keeps what could not be published in the outbox, and publishes it once JetStream takes it', async () => {
    const doc = paymentDoc({ storeId });
    failing = true;
    expect(await store.insert(doc, [created(doc._id)])).toBe('created');
    const owed = [`evt_${doc._id}`, `count:${doc._id}:1:all`, `count:${doc._id}:1:pending`];
    // The database store also owes the payment's view (its read model, payment-views.ts).
    expect((await store.byId(doc._id))?.outbox.filter((m) => !m.view).map((m) => m.msgId)).toEqual(owed);
    expect(published).toEqual([]);
    failing = false;
    await store.flush();
    expect(published.map((m) => m.msgId)).toEqual(owed);
  });

  it("lists a store's payments newest first, by status, with the total", async () => {
    const listed = `${storeId}-list`;
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const docs = [
      paymentDoc({ storeId: listed, createdAt: at(3) }),
      paymentDoc({ storeId: listed, createdAt: at(2), status: 'approved' }),
      paymentDoc({ storeId: listed, createdAt: at(1) }),
    ];
    for (const doc of docs) await store.insert(doc, []);
    await store.flush();
    const all = await store.list({ storeId: listed, livemode: false }, { page: 1, limit: 2 });
    expect({ ids: all.docs.map((d) => d._id), total: all.total }).toEqual({
      ids: [docs[2]!._id, docs[1]!._id],
      total: 3,
    });
    const second = await store.list({ storeId: listed, livemode: false }, { page: 2, limit: 2 });
    expect(second.docs.map((d) => d._id)).toEqual([docs[0]!._id]);
    const pending = await store.list({ storeId: listed, livemode: false }, { page: 1, limit: 10, status: 'pending' });
    expect({ ids: pending.docs.map((d) => d._id), total: pending.total }).toEqual({
      ids: [docs[2]!._id, docs[0]!._id],
      total: 2,
    });
  });

  it("keeps a store's modes apart: each mode reads and lists only its own payments", async () => {
    const both = `${storeId}-modes`;
    const test = paymentDoc({ storeId: both, livemode: false });
    const live = paymentDoc({ storeId: both, livemode: true });
    for (const doc of [test, live]) await store.insert(doc, []);
    await store.flush();
    const [testScope, liveScope] = [false, true].map((livemode) => ({ storeId: both, livemode }));
    expect(await store.forStore(testScope!, live._id)).toBeNull();
    expect(await store.forStore(liveScope!, test._id)).toBeNull();
    expect(await store.forStore(liveScope!, live._id)).toMatchObject({ _id: live._id, livemode: true });
    const testList = await store.list(testScope!, { page: 1, limit: 10 });
    const liveList = await store.list(liveScope!, { page: 1, limit: 10, status: 'pending' });
    expect({ ids: testList.docs.map((d) => d._id), total: testList.total }).toEqual({ ids: [test._id], total: 1 });
    expect({ ids: liveList.docs.map((d) => d._id), total: liveList.total }).toEqual({ ids: [live._id], total: 1 });
  });
  it("finds a store's payments whose dispute is open, in the mode, and no others", async () => {
    const disputed = `${storeId}-disputes`;
    const dispute = (status: 'open' | 'closed') => ({
      pspDisputeId: `INF-${status}`,
      status,
      reason: 'Não reconheço.',
      kind: 'golpe',
      amountCents: 1000,
      openedAt: new Date(),
      deadlineAt: new Date(Date.now() + 86_400_000),
      defense: null,
      decision: status === 'open' ? null : ('rejected' as const),
      closedAt: status === 'open' ? null : new Date(),
      reminded: [],
    });
    const open = paymentDoc({ storeId: disputed, status: 'approved', dispute: dispute('open') });
    const closed = paymentDoc({ storeId: disputed, status: 'approved', dispute: dispute('closed') });
    const live = paymentDoc({ storeId: disputed, status: 'approved', livemode: true, dispute: dispute('open') });
    const none = paymentDoc({ storeId: disputed, status: 'approved' });
    for (const doc of [open, closed, live, none]) await store.insert(doc, []);
    await store.flush();
    const found = await store.openDisputes({ storeId: disputed, livemode: false }, 10);
    expect(found.map((d) => [d._id, d.dispute?.status])).toEqual([[open._id, 'open']]);
    // Read back as a date (the reminders and the defence's check compare it), not as text.
    expect(found[0]?.dispute?.deadlineAt.getTime()).toBe(open.dispute?.deadlineAt.getTime());
  });
}
