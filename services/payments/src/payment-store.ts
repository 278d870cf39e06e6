import type { ListQuery, PaymentCountKey } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { isDuplicateKey, syncIndexes } from '@pix/runtime';
import { modeScope } from '@pix/contracts';
import { findPage, listKey, PageWindows, statusKey, type PageFinder } from './list-page';
import {
  OutboxWriterModel,
  PaymentModel,
  paymentsCollection,
  type OutboxEntry,
  type OutboxMessage,
  type PaymentDoc,
  type StoredPayment,
} from './model';
import type { DisputeRecord } from './disputes';
import { OutboxWriter, type Hold } from './outbox-writer';
import {
  countsOfInsert,
  isLive,
  outboxEntries,
  scopeOf,
  type Change,
  type NewPayment,
  type PaymentStorage,
  type Publish,
  type RelayPass,
  type Skip,
  type StoreScope,
  type WriteResult,
  writeDecided,
} from './payment-storage';
import { viewOwed, type PaymentViewWriter } from './payment-views';
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
 * owes cannot part. The writer then publishes them (the event id as Nats-Msg-Id, so a message
 * published twice is kept once). That they were published is recorded nowhere per message: each
 * message names its writer (OutboxWriter), which says every few seconds how far its messages are
 * published, in a record of its own; the payment's next write leaves out what is known published.
 * A writer that dies leaves its unpublished messages in the outboxes, where the relay of another
 * finds them by the writer's name and the instant it had reached
 * (docs/decisions/outbox-publication-by-writer.md).
 *
 * The store's payment counts (the list's total) are JetStream counters, and every write that makes
 * or moves a payment adds their increments to what it owes: counted once whatever is published
 * twice, and exact once the writes before a read have published, as they have when they answered.
 *
 * Writes go through the driver's collection: a payment is built here whole, so mongoose's casting and
 * validation would only cost time on the hottest path; reads are lean.
 */

/**
 * A write's outbox as it was stored, and its hold on this writer until it is published; with the
 * payment as written, from which the view the outbox owes is made (payment-views.ts).
 */
interface Owed {
  doc: PaymentDoc;
  outbox: OutboxEntry[];
  hold: Hold;
}

/** Payments whose messages from before writers were named one pass publishes at most. */
const UNNAMED_BATCH = 100;
/** Messages younger than this may still be in their writer's hands. */
const UNNAMED_MIN_AGE_MS = 5_000;
/**
 * How often a process looks for messages from before writers were named, after its first pass
 * (and at once again while a look fills its batch). Only a process of a version before 7498ba7 can
 * leave one, and only by dying with it unpublished; after an upgrade none is ever written again.
 * The look is the relay's dearest read: DocumentDB answers an equality to null on the outbox's
 * array by reading the whole outbox index (30 ms of the engine's CPU with 3,845 payments).
 */
const UNNAMED_LOOK_EVERY_MS = 5 * 60_000;

export class PaymentStore implements PaymentStorage {
  private readonly writer = new OutboxWriter();
  /** Whether this writer's record exists (the first relay pass makes it). */
  private registered = false;
  /** When this writer last said how far it had published, and after how long silent others take it for dead. */
  private lastPassAt = 0;
  private staleAfterMs = Number.POSITIVE_INFINITY;
  /** When this process next looks for messages from before writers were named: at its first pass. */
  private nextUnnamedLookAt = 0;
  private readonly retry: PublishRetry<Owed>;
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
    /** The read model: each write owes its payment's view, written before its other messages. */
    private readonly views: Pick<PaymentViewWriter, 'write'>,
  ) {
    this.retry = new PublishRetry((owed) => this.publishOwed(owed), logger);
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
   * The disputes of the store in the mode that were open at some instant from `since` on: those open
   * now, and those closed since. The store's disputed payments on the {storeId, dispute.status}
   * index (a range of both statuses: DocumentDB scans for an $or); disputes are few per store.
   */
  async disputesSince(scope: StoreScope, since: Date): Promise<DisputeRecord[]> {
    const docs = await PaymentModel.find({
      storeId: { $eq: scope.storeId },
      // $exists as the index's filter says it: MongoDB uses a partial index for a query that implies it.
      'dispute.status': { $exists: true, $in: ['closed', 'open'] },
    }).lean<StoredPayment[]>();
    return docs
      .map((doc) => shaped(doc) as PaymentDoc)
      .filter((doc) => isLive(doc) === scope.livemode)
      .flatMap((doc) => (doc.dispute ? [doc.dispute] : []))
      .filter((dispute) => dispute.status === 'open' || (dispute.closedAt && dispute.closedAt >= since));
  }

  /**
   * Stores a new payment with the messages it owes, in one insert, then publishes them. 'exists'
   * when a payment with this id is there already (a repeated create): nothing was written.
   */
  async insert(doc: NewPayment, messages: OutboxMessage[]): Promise<'created' | 'exists'> {
    await this.rejoinIfSilent();
    const hold = this.writer.hold();
    const stored: PaymentDoc = {
      ...doc,
      listKey: listKey(scopeOf(doc), doc.createdAt, doc._id),
      statusKey: statusKey(scopeOf(doc), doc.status, doc.createdAt, doc._id),
      outbox: outboxEntries([...messages, ...countsOfInsert(doc), ...viewOwed(doc)], hold.at, this.writer.id),
    };
    try {
      await paymentsCollection().insertOne(stored);
    } catch (err) {
      if (isDuplicateKey(err)) {
        hold.release();
        return 'exists';
      }
      hold.unsettle();
      throw err;
    }
    await this.publishOwed({ doc: stored, outbox: stored.outbox, hold });
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
        // The outbox as it will be: what it holds that is not known to be published (in the order
        // it was stored), then this change's messages and the view it owes. Conditional on the
        // revision read, so nothing another writer added can be lost by it.
        await this.learnWriters(doc.outbox);
        await this.rejoinIfSilent();
        const hold = this.writer.hold();
        const { _id } = doc;
        const view = viewOwed({ ...doc, ...set });
        const outbox = [
          ...doc.outbox.filter((entry) => !this.writer.published(entry)),
          ...outboxEntries([...owed, ...view], hold.at, this.writer.id),
        ];
        let updated;
        try {
          updated = await paymentsCollection().updateOne({ _id, rev: doc.rev }, { $set: { ...set, outbox } });
        } catch (err) {
          hold.unsettle();
          throw err;
        }
        if (updated.modifiedCount !== 1) {
          hold.release();
          return null;
        }
        const written: PaymentDoc = { ...doc, ...set, outbox };
        await this.publishOwed({ doc: written, outbox, hold });
        return written;
      },
    );
  }

  /**
   * Publishes a write's outbox (its own messages and any an earlier writer left unpublished), then
   * lets go of its hold: nothing is written to say so. The write has happened, so a failure here is
   * not the caller's: the messages are published again as soon as JetStream takes them
   * (PublishRetry, which keeps the payment as written for its view), and the hold stays until
   * then; one that goes through sends what waits there at once. False when it failed.
   */
  private async publishOwed(owed: Owed): Promise<boolean> {
    if (owed.outbox.length > 0) {
      try {
        await this.publishWithView(owed.doc, owed.outbox);
      } catch (err) {
        this.retry.later(owed, err);
        return false;
      }
      this.retry.back();
    }
    owed.hold.release();
    return true;
  }

  /**
   * Publishes outbox entries of `doc`; an owed view goes first, made from `doc`: whoever learns of
   * the change from its events (a webhook, a live page) and then gets the payment sees the change,
   * and so does the caller the write answers, which waits for this. The view is put
   * compare-and-set on the payment's revision, so one made from an older `doc` (a retry, a relay
   * pass) never replaces a newer one (payment-views.ts).
   *
   * A payment's first view goes alongside its messages instead, in the same flush: there is no older
   * view for an event's reader to find, and a get that finds none reads the database, so the order
   * buys nothing there and a create is spared a round trip to JetStream.
   */
  private async publishWithView(doc: PaymentDoc, entries: OutboxEntry[]): Promise<void> {
    const others = entries.filter((entry) => !entry.view);
    if (!entries.some((entry) => entry.view)) return this.publish(others);
    if (doc.rev === 1) {
      await Promise.all([this.views.write(doc), this.publish(others)]);
      return;
    }
    await this.views.write(doc);
    await this.publish(others);
  }

  /**
   * Says this writer is alive before it stamps a message, when its last pass is older than the
   * others' limit: a process frozen that long (a pause, CPU starved) may have been taken for dead,
   * and a dead writer's messages are taken for published and no relay looks for them again. Done
   * first, a crash between this write and its publish is a live writer's, which the others relay.
   * Free while the relay runs on time (every pass is well within the limit).
   */
  private async rejoinIfSilent(): Promise<void> {
    if (!this.registered || Date.now() - this.lastPassAt <= this.staleAfterMs) return;
    await this.sayAlive(new Date());
    this.logger.warn({ writer: this.writer.id }, 'outbox writer was silent past the limit: said it is alive');
  }

  /** This writer's record: how far it has published, and that it is alive at `now` (created on the first pass). */
  private async sayAlive(now: Date): Promise<void> {
    await OutboxWriterModel.updateOne(
      { _id: this.writer.id },
      { $set: { publishedThrough: this.writer.publishedThrough(), seenAt: now, gone: false } },
      { upsert: true },
    );
    this.registered = true;
    this.lastPassAt = now.getTime();
  }

  /** Reads the records of writers an outbox names that this process has not heard of (after a restart). */
  private async learnWriters(outbox: OutboxEntry[]): Promise<void> {
    const strangers = this.writer.strangers(outbox);
    if (strangers.length > 0) this.writer.learn(await OutboxWriterModel.find({ _id: { $in: strangers } }).lean());
  }

  /**
   * The relay's pass: says how far this writer has published (its record, created on the first
   * pass), reads the others', then publishes what no writer will: this writer's writes whose outcome
   * is unknown (a failed command may have landed), each writer silent for `staleAfterMs` (it is then
   * marked gone, unless it spoke meanwhile), and messages from before writers were named (at the
   * first pass, then every UNNAMED_LOOK_EVERY_MS). Each is found by the outbox index, by writer and
   * instant: the payments they left, not every payment.
   * Answers how many payments owed messages as it looked, apart: those it published, and those
   * whose outbox this process waits to publish again (JetStream away), which it leaves to the retry.
   */
  async relay(staleAfterMs: number): Promise<RelayPass> {
    const now = new Date();
    const unsettled = this.writer.unsettled();
    await this.sayAlive(now);
    this.staleAfterMs = staleAfterMs;
    const writers = await OutboxWriterModel.find({ gone: false }).lean();
    this.writer.learn(writers);
    let relayed = 0;
    if (unsettled) {
      relayed += await this.publishLeft(this.writer.id, unsettled.from);
      unsettled.release();
    }
    for (const dead of writers.filter(
      (w) => w._id !== this.writer.id && now.getTime() - w.seenAt.getTime() > staleAfterMs,
    )) {
      relayed += await this.publishLeft(dead._id, dead.publishedThrough);
      const marked = await OutboxWriterModel.updateOne(
        { _id: dead._id, seenAt: dead.seenAt },
        { $set: { gone: true } },
      );
      if (marked.modifiedCount === 1) this.writer.learn([{ ...dead, gone: true }]);
      this.logger.warn({ writer: dead._id, seenAt: dead.seenAt }, 'outbox writer silent: published what it left');
    }
    if (now.getTime() >= this.nextUnnamedLookAt) {
      const unnamed = await this.publishUnnamed(new Date(now.getTime() - UNNAMED_MIN_AGE_MS));
      this.nextUnnamedLookAt = unnamed < UNNAMED_BATCH ? now.getTime() + UNNAMED_LOOK_EVERY_MS : 0;
      relayed += unnamed;
    }
    return { relayed, waiting: this.retry.size };
  }

  /**
   * Publishes the outboxes holding messages `writer` stamped at `from` or later (all that is not
   * known published in each, in order, an owed view first). Payments are read whole, since an owed
   * view is made from the payment as it is now. Throws when JetStream does not take them: the next
   * pass tries again.
   */
  private async publishLeft(writer: string, from: Date): Promise<number> {
    // Not $elemMatch, which DocumentDB answers with a scan: both bounds on the index instead, which
    // may also find a payment where another message is that recent (published again: harmless).
    const docs = await PaymentModel.find({ 'outbox.by': writer, 'outbox.at': { $gte: from } }).lean<StoredPayment[]>();
    for (const doc of docs.map(currentShape)) {
      await this.learnWriters(doc.outbox);
      await this.publishWithView(
        doc,
        doc.outbox.filter((entry) => !this.writer.published(entry)),
      );
    }
    return docs.length;
  }

  /**
   * Messages stored before they named their writer (by a version that removed each message once
   * published), left by a writer that died or could not publish: published, then removed as then.
   * Read whole: a later write's owed view may be among them, and is made from the payment.
   */
  private async publishUnnamed(before: Date): Promise<number> {
    const docs = await PaymentModel.find({ 'outbox.by': null, 'outbox.at': { $lte: before } })
      .limit(UNNAMED_BATCH)
      .lean<StoredPayment[]>();
    for (const doc of docs.map(currentShape)) {
      await this.learnWriters(doc.outbox);
      await this.publishWithView(
        doc,
        doc.outbox.filter((entry) => !this.writer.published(entry)),
      );
      const unnamed = doc.outbox.filter((entry) => entry.by === undefined).map((entry) => entry.msgId);
      await paymentsCollection().updateOne({ _id: doc._id }, { $pull: { outbox: { msgId: { $in: unnamed } } } });
    }
    return docs.length;
  }

  /**
   * Publishes once more what waits to be published again (shutdown); when nothing is owed any more,
   * marks this writer gone, so no other waits for it to fall silent.
   */
  async flush(): Promise<void> {
    await this.retry.flush();
    if (!this.registered || this.writer.owes()) return;
    await OutboxWriterModel.updateOne({ _id: this.writer.id }, { $set: { gone: true, seenAt: new Date() } });
  }
}

/** Creates the schemas' indexes (every query above is served by one, on MongoDB and DocumentDB). */
export function syncPaymentIndexes(logger?: Logger): Promise<void> {
  return syncIndexes([PaymentModel, OutboxWriterModel], logger);
}
