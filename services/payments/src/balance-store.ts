import { LRUCache } from 'lru-cache';
import mongoose, { Schema, type mongo } from 'mongoose';
import {
  dayStart,
  modeScope,
  nextDay,
  previousDay,
  statementDay,
  STATEMENT_FIRST_DAY,
  type BalanceListQuery,
  type BalanceTransactionType,
  type ExportCursor,
  type StatementTotals,
} from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { driverCollection, isDuplicateKey, syncIndexes } from '@pix/runtime';
import { newestFirst, PageWindows } from './list-page';
import type { BalanceMovement } from './model';
import type { StoreScope } from './payment-storage';

/**
 * The store's balance transactions (`balance_transactions`), payments' own collection: each one a
 * movement a payment write carried in its outbox (balance-transactions.ts), recorded here once by
 * its id and never changed.
 */
export interface StoredMovement extends Omit<BalanceMovement, 'id'> {
  _id: string;
  /** The São Paulo day it falls on (a statement's line). */
  day: string;
  /**
   * The keys a store's movements are read by, in time order: `key` for all of them in one mode,
   * `typeKey` for one type. Each is one string (store and mode, type, time, id), so a read is a range
   * on one indexed field: on the local engine an equality on `storeId` in a compound index would read
   * the store's whole posting list (list-page.ts says more).
   */
  key: string;
  typeKey: string;
  recordedAt: Date;
}

const MovementSchema = new Schema<StoredMovement>(
  {
    _id: { type: String, required: true },
    storeId: { type: String, required: true },
    livemode: { type: Boolean, required: true },
    type: { type: String, required: true },
    amountCents: { type: Number, required: true },
    paymentId: { type: String, required: true },
    refundId: { type: String, default: null },
    endToEndId: { type: String, required: true },
    origin: { type: String, default: null },
    nature: { type: String, default: null },
    connection: { type: String, required: true },
    createdAt: { type: Date, required: true },
    day: { type: String, required: true },
    key: { type: String, required: true },
    typeKey: { type: String, required: true },
    recordedAt: { type: Date, required: true },
  },
  { collection: 'balance_transactions', versionKey: false, strict: true },
);

// A store's movements in a mode by time, and of one type by time (the list, the statement, the CSV).
MovementSchema.index({ key: 1 });
MovementSchema.index({ typeKey: 1 });
// The nightly check: every store's movements of a day, and every movement of the Pix it compares.
MovementSchema.index({ createdAt: 1 });
MovementSchema.index({ endToEndId: 1 });

export const MovementModel = mongoose.model<StoredMovement>('BalanceTransaction', MovementSchema);

function movementsCollection(): mongo.Collection<StoredMovement> {
  return driverCollection(MovementModel);
}

function keyOf(scope: string, at: Date, id: string): string {
  return `${scope}|${at.toISOString()}|${id}`;
}

function typeKeyOf(scope: string, type: BalanceTransactionType, at: Date, id: string): string {
  return `${scope}|${type}|${at.toISOString()}|${id}`;
}

/** The keys of a scope's movements (of one type, if given) from the start of day `from` to the end of day `to`. */
function range(scope: StoreScope, from: string, to: string, type?: BalanceTransactionType) {
  const named = modeScope(scope.storeId, scope.livemode);
  const prefix = type ? `${named}|${type}|` : `${named}|`;
  const since = dayStart(from);
  const until = dayStart(nextDay(to));
  return {
    field: type ? ('typeKey' as const) : ('key' as const),
    prefix,
    since,
    until,
    from: prefix + since.toISOString(),
    to: prefix + until.toISOString(),
  };
}

/** A movement as a stored document. */
export function storedMovement(moved: BalanceMovement, recordedAt: Date): StoredMovement {
  const { id, ...rest } = moved;
  const scope = modeScope(moved.storeId, moved.livemode);
  return {
    _id: id,
    ...rest,
    day: statementDay(moved.createdAt),
    key: keyOf(scope, moved.createdAt, id),
    typeKey: typeKeyOf(scope, moved.type, moved.createdAt, id),
    recordedAt,
  };
}

/** A movement as read back. */
function movementOf(doc: StoredMovement): BalanceMovement {
  return {
    id: doc._id,
    storeId: doc.storeId,
    livemode: doc.livemode,
    type: doc.type,
    amountCents: doc.amountCents,
    paymentId: doc.paymentId,
    refundId: doc.refundId,
    endToEndId: doc.endToEndId,
    origin: doc.origin,
    nature: doc.nature,
    connection: doc.connection,
    createdAt: doc.createdAt,
  };
}

/** How many days before `to` a list without `from` looks back. */
const DEFAULT_LIST_DAYS = 31;

/** A page of the CSV export: its movements, oldest first, and where the next one starts (null: the last). */
export interface ExportPage {
  items: BalanceMovement[];
  next: ExportCursor | null;
}

const FIRST_WINDOW_MS = 60 * 60 * 1000;
const NARROWEST_WINDOW_MS = 1000;

/** How long a process keeps its count of a range's days before today (BalanceTransactions.count). */
const PAST_COUNT_MS = 60_000;

export class BalanceTransactions {
  private readonly windows = new PageWindows();
  private readonly pastCounts = new LRUCache<string, number>({ max: 10_000, ttl: PAST_COUNT_MS });

  constructor(private readonly logger: Logger) {}

  /**
   * Records movements, once each: an upsert by id that only inserts, so a movement published again
   * (the relay, a retry, a redelivery) writes nothing. One command for a write's movements.
   */
  async record(movements: BalanceMovement[]): Promise<void> {
    const now = new Date();
    try {
      await movementsCollection().bulkWrite(
        movements.map((moved) => {
          const { _id, ...fields } = storedMovement(moved, now);
          return { updateOne: { filter: { _id }, update: { $setOnInsert: fields }, upsert: true } };
        }),
        { ordered: false },
      );
    } catch (err) {
      // Two publishers racing on one movement: the other's insert is the record.
      if (!isDuplicateKey(err)) throw err;
      this.logger.debug({ err }, 'balance transaction recorded by another publisher');
    }
  }

  /**
   * How many movements of a scope (of one type, if given) days `from` to `to` hold: today's counted
   * each time, the days before today from a count this process keeps PAST_COUNT_MS. Counting is
   * reading every index entry of the range, and a month of a busy store is 100,000 of them, for each
   * page asked; a movement is recorded seconds after the instant it is dated by, so a day past
   * changes only in its first moments (a late one shows in the total within PAST_COUNT_MS).
   */
  private async count(
    scope: StoreScope,
    from: string,
    to: string,
    type: BalanceTransactionType | undefined,
    now: Date,
  ): Promise<number> {
    const counted = (first: string, last: string) => {
      const days = range(scope, first, last, type);
      return MovementModel.countDocuments({ [days.field]: { $gte: days.from, $lt: days.to } }).exec();
    };
    const today = statementDay(now);
    const lastPast = to < today ? to : previousDay(today);
    let past = 0;
    if (from <= lastPast) {
      const key = [modeScope(scope.storeId, scope.livemode), type ?? '', from, lastPast].join('|');
      const kept = this.pastCounts.get(key);
      past = kept ?? (await counted(from, lastPast));
      if (kept === undefined) this.pastCounts.set(key, past);
    }
    return to < today ? past : past + (await counted(from > today ? from : today, to));
  }

  /**
   * A page of a scope's movements, newest first, and how many match (count). The page is looked for
   * in a window of time that widens as a store's payment list does (list-page.ts): the local engine
   * reads and sorts all a range holds, and a month of a busy store is 100,000.
   */
  async list(
    scope: StoreScope,
    query: BalanceListQuery,
    now = new Date(),
  ): Promise<{ items: BalanceMovement[]; total: number }> {
    const to = query.to ?? statementDay(now);
    const from = query.from ?? lookBack(to);
    const { field, prefix, since, until } = range(scope, from, to, query.type);
    const total = await this.count(scope, from, to, query.type, now);
    const docs = await newestFirst(
      (windowFrom, windowTo, skip, limit) =>
        MovementModel.find({ [field]: { $gte: windowFrom, $lt: windowTo } })
          .sort({ [field]: -1 })
          .skip(skip)
          .limit(limit)
          .lean<StoredMovement[]>()
          .exec(),
      this.windows,
      prefix,
      query,
      total,
      { since, until, now },
    );
    return { items: docs.map(movementOf), total };
  }

  /**
   * A page of a scope's movements from day `from` to day `to`, oldest first (the CSV), after the
   * cursor's key. The local engine reads and sorts all a range holds (its index does not return them
   * in order), so a page looks only in a window of time from the cursor, which halves when the page
   * was full and doubles when it was not: a page reads about what it returns, whatever the day holds.
   */
  async exportPage(
    scope: StoreScope,
    from: string,
    to: string,
    cursor: ExportCursor | null,
    limit: number,
  ): Promise<ExportPage> {
    const { from: lo, to: hi } = range(scope, from, to);
    const after = cursor?.after ?? lo;
    let windowMs = cursor?.windowMs ?? FIRST_WINDOW_MS;
    const prefix = lo.slice(0, lo.lastIndexOf('|') + 1);
    const afterAt = Date.parse(after.slice(prefix.length, prefix.length + 24));
    const windowEnd = prefix + new Date(afterAt + windowMs).toISOString();
    const end = windowEnd < hi ? windowEnd : hi;
    const docs = await MovementModel.find({ key: { [cursor ? '$gt' : '$gte']: after, $lt: end } })
      .sort({ key: 1 })
      .limit(limit)
      .lean<StoredMovement[]>()
      .exec();
    const last = docs.at(-1);
    if (last && docs.length === limit) {
      windowMs = Math.max(NARROWEST_WINDOW_MS, windowMs / 2);
      return { items: docs.map(movementOf), next: { after: last.key, windowMs } };
    }
    if (end === hi) return { items: docs.map(movementOf), next: null };
    // The window held less than a page: the next page starts where it ended, looking twice as far.
    return { items: docs.map(movementOf), next: { after: end, windowMs: windowMs * 2 } };
  }

  /** Each day's sums from day `from` to day `to` (days without a movement are left out): one aggregate. */
  async totals(scope: StoreScope, from: string, to: string): Promise<Map<string, StatementTotals>> {
    const { from: lo, to: hi } = range(scope, from, to);
    const groups = await MovementModel.aggregate<{
      _id: { day: string; type: BalanceTransactionType };
      cents: number;
      n: number;
    }>([
      { $match: { key: { $gte: lo, $lt: hi } } },
      { $group: { _id: { day: '$day', type: '$type' }, cents: { $sum: '$amountCents' }, n: { $sum: 1 } } },
    ]).exec();
    const days = new Map<string, StatementTotals>();
    for (const { _id, cents, n } of groups) {
      const totals = days.get(_id.day) ?? emptyTotals();
      addTo(totals, _id.type, cents, n);
      days.set(_id.day, totals);
    }
    return days;
  }

  /** Every movement on connection `livemode` dated in [from, to), every store's (a window of the nightly check's day). */
  async within(livemode: boolean, from: Date, to: Date): Promise<BalanceMovement[]> {
    const docs = await MovementModel.find({ createdAt: { $gte: from, $lt: to }, livemode: { $eq: livemode } })
      .lean<StoredMovement[]>()
      .exec();
    return docs.map(movementOf);
  }

  /** Every movement of these Pix on connection `livemode`, whatever day: a command per PIX_BATCH of them. */
  async ofPix(livemode: boolean, endToEndIds: string[]): Promise<BalanceMovement[]> {
    const batches: string[][] = [];
    for (let i = 0; i < endToEndIds.length; i += PIX_BATCH) batches.push(endToEndIds.slice(i, i + PIX_BATCH));
    const found = await Promise.all(
      batches.map((ids) =>
        MovementModel.find({ endToEndId: { $in: ids } })
          .lean<StoredMovement[]>()
          .exec(),
      ),
    );
    return found
      .flat()
      .filter((d) => d.livemode === livemode)
      .map(movementOf);
  }
}

/** Pix asked for in one command by ofPix. */
const PIX_BATCH = 500;

function lookBack(to: string): string {
  const from = new Date(`${to}T00:00:00.000Z`);
  from.setUTCDate(from.getUTCDate() - (DEFAULT_LIST_DAYS - 1));
  const day = from.toISOString().slice(0, 10);
  return day < STATEMENT_FIRST_DAY ? STATEMENT_FIRST_DAY : day;
}

export function emptyTotals(): StatementTotals {
  return {
    receivedCents: 0,
    receivedCount: 0,
    refundedCents: 0,
    refundedCount: 0,
    medReturnedCents: 0,
    medReturnedCount: 0,
  };
}

/** Adds a type's sum to a day's lines: money out is told as a positive sum. */
function addTo(totals: StatementTotals, type: BalanceTransactionType, cents: number, n: number): void {
  switch (type) {
    case 'pix_received':
    case 'late_pix_received':
      totals.receivedCents += cents;
      totals.receivedCount += n;
      return;
    case 'refund':
    case 'late_pix_returned':
      totals.refundedCents -= cents;
      totals.refundedCount += n;
      return;
    case 'med_return':
      totals.medReturnedCents -= cents;
      totals.medReturnedCount += n;
      return;
  }
}

/** Creates the collection's indexes. */
export function syncBalanceIndexes(logger?: Logger): Promise<void> {
  return syncIndexes([MovementModel], logger);
}
