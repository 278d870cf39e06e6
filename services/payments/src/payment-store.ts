import type { ListQuery, PaymentCountKey } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { isDuplicateKey, syncIndexes } from '@pix/runtime';
import { modeScope } from '@pix/contracts';
import { findPage, listKey, PageWindows, statusKey, type PageFinder } from './list-page';
import { PaymentModel, paymentsCollection, type OutboxMessage, type PaymentDoc, type StoredPayment } from './model';
import { OutboxClearer } from './outbox-clearer';
import {
  countsOfInsert,
  isLive,
  outboxEntries,
  scopeOf,
  type Change,
  type NewPayment,
  type PaymentStorage,
  type Publish,
  type Skip,
  type StoreScope,
  type WriteResult,
  writeDecided,
} from './payment-storage';
import { PublishRetry } from './publish-retry';
import { currentShape } from './refund-records';

/** A read's document in today's shape (refund-records.ts); null stays null. */
function shaped(stored: StoredPayment | null): PaymentDoc | null {
  return stored && currentShape(stored);
}

/** Reads one of a store's payment counters in one mode (`scope`: modeScope's name of the store in it). */
export type ReadCount = (scope: string, key: PaymentCountKey) => Promise<number>;

/**
 * The payments' storage on the database (PaymentStorage, payment-storage.ts): the only module that
 * reads or writes it (eslint enforces it).
 *
 * Every write is one atomic command: a create is one insert, a change one update conditional on the
 * revision it was decided on (`{_id, rev}`), and each carries the messages it owes to JetStream (its
 * event, its deadlines) into the payment's own outbox in that same command, so a change and what it
 * owes cannot part. The writer then publishes the outbox (the event id as Nats-Msg-Id, so a message
 * published twice is kept once) and removes what it published, in batches (OutboxClearer); a later
 * change by the same process leaves out what it published already. A writer that dies in between
 * leaves the messages in the outbox, where the relay finds them.
 *
 * The store's payment counts (the list's total) are JetStream counters, and every write that makes
 * or moves a payment adds their increments to what it owes: counted once whatever is published
 * twice, and exact once the writes before a read have published, as they have when they answered.
 *
 * Writes go through the driver's collection: a payment is built here whole, so mongoose's casting and
 * validation would only cost time on the hottest path; reads are lean.
 */

export class PaymentStore implements PaymentStorage {
  private readonly clearer: OutboxClearer;
  private readonly retry: PublishRetry<Pick<PaymentDoc, '_id' | 'outbox'>>;
  private readonly windows = new PageWindows();

  private readonly pages: PageFinder = {
    find: async (field, from, to, skip, limit) => {
      const docs = await PaymentModel.find({ [field]: { $gte: from, $lt: to } })
        .sort({ [field]: -1 })
        .skip(skip)
        .limit(limit)
        .lean<StoredPayment[]>()
        .exec();
      return docs.map(currentShape);
    },
  };

  constructor(
    private readonly publish: Publish,
    private readonly readCount: ReadCount,
    private readonly logger: Logger,
  ) {
    // One update command, one statement per payment, each found by its id: DocumentDB runs an
    // update whose filter is `_id: {$in: [...]}` as a scan of the whole collection (8.7 ms for 4
    // payments of 20,000, against 0.6 ms for these 4 statements), though it finds them by the index.
    this.clearer = new OutboxClearer(
      (published) =>
        paymentsCollection().bulkWrite(
          published.map(([_id, msgIds]) => ({
            updateOne: { filter: { _id }, update: { $pull: { outbox: { msgId: { $in: msgIds } } } } },
          })),
          { ordered: false },
        ),
      (err) => logger.warn({ err }, 'removing published messages from outboxes failed; the relay retries'),
    );
    this.retry = new PublishRetry((doc) => this.publishOutbox(doc), logger);
  }

  /**
   * A store's payment in the mode (another store's, or the other mode's, is the same as none). One
   * command; the mode is checked on the payment read, since one from before modes has none (test).
   */
  async forStore(scope: StoreScope, id: string): Promise<PaymentDoc | null> {
    const doc = shaped(
      await PaymentModel.findOne({ _id: { $eq: id }, storeId: { $eq: scope.storeId } }).lean<StoredPayment>(),
    );
    return doc && isLive(doc) === scope.livemode ? doc : null;
  }

  async byId(id: string): Promise<PaymentDoc | null> {
    return shaped(await PaymentModel.findOne({ _id: { $eq: id } }).lean<StoredPayment>());
  }

  async byTxid(txid: string): Promise<PaymentDoc | null> {
    return shaped(await PaymentModel.findOne({ txid: { $eq: txid } }).lean<StoredPayment>());
  }

  /**
   * A page of a store's payments, newest first, and how many match: one counter read and the
   * page's query (or a few, list-page.ts), whatever the store's size.
   */
  async list(scope: StoreScope, query: ListQuery): Promise<{ docs: PaymentDoc[]; total: number }> {
    const named = modeScope(scope.storeId, scope.livemode);
    const total = await this.readCount(named, query.status ?? 'all');
    return { docs: await findPage(this.pages, this.windows, named, query, total), total };
  }

  /** A store's payments in the mode whose dispute is open: one query on its index, the mode checked on the payments read. */
  async openDisputes(scope: StoreScope, limit: number): Promise<PaymentDoc[]> {
    const docs = await PaymentModel.find({ storeId: { $eq: scope.storeId }, 'dispute.status': 'open' })
      .limit(limit)
      .lean<StoredPayment[]>();
    return docs.map((doc) => shaped(doc) as PaymentDoc).filter((doc) => isLive(doc) === scope.livemode);
  }

  /**
   * Stores a new payment with the messages it owes, in one insert, then publishes them. 'exists'
   * when a payment with this id is there already (a repeated create): nothing was written.
   */
  async insert(doc: NewPayment, messages: OutboxMessage[]): Promise<'created' | 'exists'> {
    const owed = [...messages, ...countsOfInsert(doc)];
    const stored: PaymentDoc = {
      ...doc,
      listKey: listKey(scopeOf(doc), doc.createdAt, doc._id),
      statusKey: statusKey(scopeOf(doc), doc.status, doc.createdAt, doc._id),
      outbox: outboxEntries(owed, new Date()),
    };
    try {
      await paymentsCollection().insertOne(stored);
    } catch (err) {
      if (isDuplicateKey(err)) return 'exists';
      throw err;
    }
    await this.publishOutbox(stored);
    return 'created';
  }

  /** Changes one payment as `decide` says, by the write protocol (writeDecided), one conditional update per decision. */
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
        // The outbox as it will be: what it holds that is still owed, then this change's messages.
        // Conditional on the revision read, so nothing another writer added can be lost by it.
        const { _id } = doc;
        const outbox = [...doc.outbox.filter((e) => !this.clearer.published(_id, e.msgId)), ...owed];
        const updated = await paymentsCollection().updateOne({ _id, rev: doc.rev }, { $set: { ...set, outbox } });
        if (updated.modifiedCount !== 1) return null;
        const next: PaymentDoc = { ...doc, ...set, outbox };
        await this.publishOutbox(next);
        return next;
      },
    );
  }

  /**
   * Publishes everything in a payment's outbox as of a write (its own messages and any an earlier
   * writer left), then has them removed. The write has happened, so a failure here is not the
   * caller's: the messages stay, and are published again as soon as JetStream takes them
   * (PublishRetry), or by the relay should this process die first. False when it failed. The relay
   * publishes a leftover outbox with it too.
   */
  async publishOutbox(doc: Pick<PaymentDoc, '_id' | 'outbox'>): Promise<boolean> {
    if (doc.outbox.length === 0) return true;
    try {
      await this.publish(doc.outbox);
    } catch (err) {
      this.retry.later(doc, err);
      return false;
    }
    this.clearer.clear(
      doc._id,
      doc.outbox.map((entry) => entry.msgId),
    );
    return true;
  }

  /**
   * Payments with messages stored before `before` and still unpublished: left by a writer that died
   * between its write and its publish, or written while JetStream was unreachable. A range on the
   * outbox index: it reads those payments only.
   */
  async leftovers(before: Date, limit: number): Promise<Pick<PaymentDoc, '_id' | 'outbox'>[]> {
    return PaymentModel.find({ 'outbox.at': { $lte: before } })
      .select({ outbox: 1 })
      .limit(limit)
      .lean<Pick<PaymentDoc, '_id' | 'outbox'>[]>();
  }

  /** Removes what is still waiting to be removed (shutdown); what waits to be published again is the relay's. */
  flush(): Promise<void> {
    return this.clearer.flush();
  }
}

/** Creates the schema's indexes (every query above is served by one, on MongoDB and DocumentDB). */
export function syncPaymentIndexes(logger?: Logger): Promise<void> {
  return syncIndexes([PaymentModel], logger);
}
