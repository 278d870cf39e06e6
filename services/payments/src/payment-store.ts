import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ListQuery } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { isDuplicateKey } from '@pix/runtime';
import { IntentModel, PaymentModel, type IntentDoc, type OutboxMessage, type PaymentDoc } from './model';

/**
 * The payments' storage: the only module that reads or writes the database (eslint enforces it).
 * Every query is a top-level equality filter on an indexed field, because FerretDB pushes down
 * nothing else (libs/contracts EqualityIndexedFields).
 *
 * Writes. FerretDB 1.24 applies a conditional update as read, change in Go, write back the whole
 * document, outside any transaction: two racing writers can both "win", and one undoes the other.
 * Inserting a unique `_id` is atomic on every engine, so a writer first inserts its intent under
 * `<paymentId>:<rev>` (the revision it read): only one writer can move a payment from a revision.
 * The intent also holds the messages the write owes (its event, its deadlines), and is removed once
 * they are published. A write therefore costs: intent insert, conditional update, intent delete.
 */

/** A change of a payment: the fields to set and the messages it owes to JetStream. */
export interface Change {
  set: Partial<PaymentDoc>;
  messages: OutboxMessage[];
}

/** Why a decision made no change; handed back to the caller. */
export interface Skip<R extends string> {
  skip: R;
}

export type WriteResult<R extends string> =
  { written: true; doc: PaymentDoc } | { written: false; reason: R | 'not_found'; doc: PaymentDoc | null };

/** Publishes the messages a write owes; throws when JetStream did not take them all. */
export type Publish = (messages: OutboxMessage[]) => Promise<void>;

/** An intent older than this was left by a writer that died (or stalled): others may take over. */
export const INTENT_LEASE_MS = 10_000;
/** How long a writer waits for another writer of the same payment before giving up. */
const WAIT_MS = 15_000;

export class PaymentWriteTimeout extends Error {
  /** Contention, not a bug: the caller may try again (a 503). */
  readonly transient = true;

  constructor(paymentId: string) {
    super(`payment ${paymentId} stayed claimed by another writer for ${WAIT_MS} ms`);
    this.name = 'PaymentWriteTimeout';
  }
}

/** Whether the payment's revisions include the intent's write (see recover). */
function wrote(payment: Pick<PaymentDoc, 'rev' | 'writtenBy'>, intent: IntentDoc): boolean {
  // Written before writers were recorded: only the revision can tell.
  if (intent.writer === undefined) return payment.rev > intent.rev;
  return payment.writtenBy?.includes(intent.writer) ?? false;
}

function intentId(paymentId: string, rev: number): string {
  return `${paymentId}:${rev}`;
}

export class PaymentStore {
  constructor(
    private readonly publish: Publish,
    private readonly logger: Logger,
  ) {}

  /** A store's payment (another store's is the same as none). One command. */
  forStore(storeId: string, id: string): Promise<PaymentDoc | null> {
    return PaymentModel.findOne({ _id: { $eq: id }, storeId: { $eq: storeId } }).lean<PaymentDoc>();
  }

  byId(id: string): Promise<PaymentDoc | null> {
    return PaymentModel.findOne({ _id: { $eq: id } }).lean<PaymentDoc>();
  }

  byTxid(txid: string): Promise<PaymentDoc | null> {
    return PaymentModel.findOne({ txid: { $eq: txid } }).lean<PaymentDoc>();
  }

  /**
   * A page of a store's payments, newest first, and how many match: two commands. MongoDB sorts
   * with the compound index; FerretDB filters by the store in PostgreSQL and sorts in Go.
   */
  async list(storeId: string, query: ListQuery): Promise<{ docs: PaymentDoc[]; total: number }> {
    const filter: Record<string, unknown> = { storeId: { $eq: storeId } };
    if (query.status) filter.status = { $eq: query.status };
    const [docs, total] = await Promise.all([
      PaymentModel.find(filter)
        .sort({ createdAt: -1, _id: -1 })
        .skip((query.page - 1) * query.limit)
        .limit(query.limit)
        .lean<PaymentDoc[]>(),
      PaymentModel.countDocuments(filter),
    ]);
    return { docs, total };
  }

  /**
   * Stores a new payment and publishes what it owes: three commands (intent, payment, intent
   * removal). 'exists' when a payment with this id is there already or is being created.
   *
   * Only a duplicate id says the insert did not happen. Any other failure may come after the
   * database stored it (a database killed as it committed answers an error to a write it kept), so
   * the intent stays for the recovery sweep, which publishes its event if the payment names this
   * writer. Removing it here lost the `payment.created` of such payments in a chaos run: the retry
   * found the payment and answered it, and nothing owed its event any more.
   */
  async insert(doc: PaymentDoc, messages: OutboxMessage[]): Promise<'created' | 'exists'> {
    const intent = await this.claim(doc._id, 0, messages);
    if (!intent) return 'exists';
    try {
      await PaymentModel.create({ ...doc, writtenBy: [intent.writer] });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      await this.release(intent);
      return 'exists';
    }
    await this.deliver(intent);
    return 'created';
  }

  /**
   * Changes one payment as `decide` says, given the payment as it is: `decide` returns the change,
   * or why there is none. When another writer got there first, the payment is read again and
   * `decide` asked again, so a decision is always made on the current state. `seen` saves the first
   * read when the caller has just read the payment.
   */
  async write<R extends string>(
    id: string,
    decide: (doc: PaymentDoc) => Change | Skip<R>,
    seen?: PaymentDoc,
  ): Promise<WriteResult<R>> {
    const giveUpAt = Date.now() + WAIT_MS;
    let doc = seen ?? (await this.byId(id));
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      if (!doc) return { written: false, reason: 'not_found', doc: null };
      const decision = decide(doc);
      if ('skip' in decision) return { written: false, reason: decision.skip, doc };
      const intent = await this.claim(id, doc.rev, decision.messages);
      if (intent) {
        const next: PaymentDoc = { ...doc, ...decision.set, rev: doc.rev + 1 };
        // On MongoDB the filter alone decides; on FerretDB the intent does, and the filter catches
        // a writer that read before another's write and claimed after its intent was removed.
        const updated = await PaymentModel.updateOne(
          { _id: id, rev: doc.rev },
          { $set: { ...decision.set, rev: next.rev }, $push: { writtenBy: intent.writer } },
        );
        if (updated.modifiedCount === 1) {
          await this.deliver(intent);
          return { written: true, doc: next };
        }
        await this.release(intent);
      } else if (Date.now() > giveUpAt) {
        throw new PaymentWriteTimeout(id);
      } else {
        await sleep(delay);
      }
      doc = await this.byId(id);
    }
  }

  /**
   * Inserts the intent that claims revision `rev` of a payment; null when another writer holds it.
   * A claim older than the lease was left by a writer that died: it is finished (its messages
   * published if its write happened) or dropped, and the claim is tried again.
   */
  private async claim(paymentId: string, rev: number, messages: OutboxMessage[]): Promise<IntentDoc | null> {
    const intent: IntentDoc & { writer: string } = {
      _id: intentId(paymentId, rev),
      paymentId,
      rev,
      at: new Date(),
      writer: randomUUID(),
      open: true,
      messages,
    };
    for (let tries = 0; tries < 2; tries++) {
      try {
        await IntentModel.create(intent);
        return intent;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const held = await IntentModel.findOne({ _id: { $eq: intent._id } }).lean<IntentDoc>();
      if (held && Date.now() - held.at.getTime() < INTENT_LEASE_MS) return null;
      if (held) await this.recover(held);
    }
    return null;
  }

  /**
   * Finishes an intent whose writer is gone: its messages are owed if its write happened, which the
   * payment says by naming the intent's writer among its revisions'. The revision alone does not
   * say it: a writer whose write lost (another had moved the payment) and who could not remove its
   * intent (the database went away) leaves one behind on a revision the payment has moved past.
   */
  async recover(intent: IntentDoc): Promise<'published' | 'dropped'> {
    const payment = await PaymentModel.findOne({ _id: { $eq: intent.paymentId } })
      .select({ rev: 1, writtenBy: 1 })
      .lean<Pick<PaymentDoc, 'rev' | 'writtenBy'>>();
    if (payment && wrote(payment, intent)) {
      await this.publish(intent.messages);
      await this.release(intent);
      return 'published';
    }
    await this.release(intent);
    return 'dropped';
  }

  /** Intents left open: by writers that crashed, or while JetStream was unreachable. */
  openIntents(limit: number): Promise<IntentDoc[]> {
    return IntentModel.find({ open: true }).limit(limit).lean<IntentDoc[]>();
  }

  /**
   * Publishes an intent's messages, then removes it. The write it belongs to has happened, so a
   * failure here is not the caller's: the intent stays open and the recovery sweep publishes it.
   */
  private async deliver(intent: IntentDoc): Promise<void> {
    try {
      await this.publish(intent.messages);
    } catch (err) {
      this.logger.warn(
        { err, paymentId: intent.paymentId },
        'publishing after a write failed; the outbox sweep retries',
      );
      return;
    }
    await this.release(intent);
  }

  private async release(intent: IntentDoc): Promise<void> {
    await IntentModel.deleteOne({ _id: intent._id, at: intent.at });
  }
}

/** Creates the schemas' indexes (MongoDB serves the queries above from them). */
export async function syncPaymentIndexes(): Promise<void> {
  await Promise.all([PaymentModel.syncIndexes(), IntentModel.syncIndexes()]);
}
