import type { ListQuery } from '@pix/contracts';
import { listKey, statusKey } from '../list-page';
import type { OutboxMessage, PaymentDoc } from '../model';
import {
  countsOfInsert,
  isLive,
  outboxEntries,
  scopeOf,
  type StoreScope,
  type Change,
  type NewPayment,
  type PaymentStorage,
  type RelayPass,
  type Publish,
  type Skip,
  type WriteResult,
  writeDecided,
} from '../payment-storage';

/**
 * PaymentStorage in memory, for unit tests of the flows: the same protocol as PaymentStore (an
 * insert of an id already there answers 'exists'; a write lands only on the revision it was decided
 * on, and a writer that lost decides again on the payment as it is; what a write owes is published
 * through `publish`, and stays in the outbox when that throws, for `relay` or `flush`) with nothing
 * started; what was published leaves the outbox at once (no writers to ask). Each read
 * answers a copy, as a database does, so a caller holding a payment does not see later writes.
 */
export class InMemoryPayments implements PaymentStorage {
  private readonly docs = new Map<string, PaymentDoc>();
  /** Runs once before the next conditional write is applied: a test's racing writer goes there. */
  private interloper: (() => Promise<void>) | undefined;

  constructor(private readonly publish: Publish) {}

  /** Has `write` run before the next conditional write lands, as another writer getting there first. */
  beforeNextWrite(write: () => Promise<void>): void {
    this.interloper = write;
  }

  async forStore(scope: StoreScope, id: string): Promise<PaymentDoc | null> {
    const doc = this.docs.get(id);
    return doc && doc.storeId === scope.storeId && isLive(doc) === scope.livemode ? structuredClone(doc) : null;
  }

  async openDisputes(scope: StoreScope, limit: number): Promise<PaymentDoc[]> {
    return [...this.docs.values()]
      .filter((d) => d.storeId === scope.storeId && isLive(d) === scope.livemode && d.dispute?.status === 'open')
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  async byId(id: string): Promise<PaymentDoc | null> {
    const doc = this.docs.get(id);
    return doc ? structuredClone(doc) : null;
  }

  async byTxid(txid: string): Promise<PaymentDoc | null> {
    const doc = [...this.docs.values()].find((d) => d.txid === txid);
    return doc ? structuredClone(doc) : null;
  }

  async list(scope: StoreScope, query: ListQuery): Promise<{ docs: PaymentDoc[]; total: number }> {
    const matching = [...this.docs.values()]
      .filter(
        (d) =>
          d.storeId === scope.storeId && isLive(d) === scope.livemode && (!query.status || d.status === query.status),
      )
      .sort((a, b) => (a.listKey < b.listKey ? 1 : a.listKey > b.listKey ? -1 : 0));
    const skip = (query.page - 1) * query.limit;
    return { docs: matching.slice(skip, skip + query.limit).map((d) => structuredClone(d)), total: matching.length };
  }

  async insert(doc: NewPayment, messages: OutboxMessage[]): Promise<'created' | 'exists'> {
    if (this.docs.has(doc._id) || [...this.docs.values()].some((d) => d.txid === doc.txid)) return 'exists';
    const stored: PaymentDoc = {
      ...structuredClone(doc),
      listKey: listKey(scopeOf(doc), doc.createdAt, doc._id),
      statusKey: statusKey(scopeOf(doc), doc.status, doc.createdAt, doc._id),
      outbox: outboxEntries([...messages, ...countsOfInsert(doc)], new Date()),
    };
    this.docs.set(doc._id, stored);
    await this.publishOutbox(stored);
    return 'created';
  }

  write<R extends string>(
    id: string,
    decide: (doc: PaymentDoc) => Change | Skip<R>,
    seen?: PaymentDoc,
  ): Promise<WriteResult<R>> {
    return writeDecided(
      id,
      (i) => this.byId(i),
      decide,
      seen,
      async (doc, { set, owed }) => {
        const interloper = this.interloper;
        this.interloper = undefined;
        await interloper?.();
        const current = this.docs.get(id);
        if (!current || current.rev !== doc.rev) return null;
        const next: PaymentDoc = {
          ...current,
          ...structuredClone(set),
          outbox: [...current.outbox, ...outboxEntries(owed, new Date())],
        };
        this.docs.set(id, next);
        const written = structuredClone(next);
        await this.publishOutbox(next);
        return written;
      },
    );
  }

  /** Publishes every outbox still holding messages (one process: no writer to wait for). */
  async relay(): Promise<RelayPass> {
    const owing = [...this.docs.values()].filter((d) => d.outbox.length > 0);
    for (const doc of owing) await this.publishOutbox(doc);
    return { relayed: owing.length, waiting: 0 };
  }

  async flush(): Promise<void> {
    await this.relay();
  }

  /** Publishes what the payment's outbox holds and removes it; on a failure it stays, for the relay. */
  private async publishOutbox({ _id: id }: Pick<PaymentDoc, '_id' | 'outbox'>): Promise<boolean> {
    const owed = this.docs.get(id)?.outbox ?? [];
    if (owed.length === 0) return true;
    try {
      await this.publish(owed);
    } catch {
      return false;
    }
    const doc = this.docs.get(id);
    if (doc) this.docs.set(id, { ...doc, outbox: doc.outbox.filter((entry) => !owed.includes(entry)) });
    return true;
  }
}
