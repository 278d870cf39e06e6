import { modeScope, Subjects, type ListQuery, type PaymentCountKey, type PaymentStatus } from '@pix/contracts';
import { movementMessage, movementsOfChange } from './balance-transactions';
import { statusKey } from './list-page';
import type { OutboxEntry, OutboxMessage, PaymentDoc, PaymentState } from './model';

/** A store's data in one mode: what a token (or the dashboard's session) sees. */
export interface StoreScope {
  storeId: string;
  livemode: boolean;
}

/** A payment's mode: live only when created so (a payment from before modes is a test one). */
export function isLive(doc: Pick<PaymentDoc, 'livemode'>): boolean {
  return doc.livemode === true;
}

/** The name of a payment's store and mode in its list keys and counters (modeScope). */
export function scopeOf(doc: Pick<PaymentDoc, 'storeId' | 'livemode'>): string {
  return modeScope(doc.storeId, isLive(doc));
}

/**
 * What the payments' flows (create, PSP facts, deadlines, transitions, queries, the outbox relay)
 * need of their storage, and the write protocol every implementation keeps: PaymentStore on the
 * database in production, an in-memory one in the unit tests (src/testing/).
 *
 * - A create is one insert with the messages it owes; a payment with the same id already there
 *   answers 'exists' and nothing is written.
 * - A change is decided on the payment as read (`decide`) and written only if nobody wrote it in
 *   between (conditional on its `rev`); a writer that lost reads the payment again and decides again.
 * - What a write owes (its messages, and the store's counter increments it causes) is stored with
 *   it, then published through the implementation's publish function; what could not be published
 *   stays in the payment's outbox, and is published again (by the writer, or by `relay` for a
 *   writer that cannot).
 */
export interface PaymentStorage {
  /** A store's payment in the mode (another store's, or the other mode's, is the same as none). */
  forStore(scope: StoreScope, id: string): Promise<PaymentDoc | null>;
  byId(id: string): Promise<PaymentDoc | null>;
  byTxid(txid: string): Promise<PaymentDoc | null>;
  /** A page of a store's payments in the mode, newest first (createdAt, then id), and how many match. */
  list(scope: StoreScope, query: ListQuery): Promise<{ docs: PaymentDoc[]; total: number }>;
  insert(doc: NewPayment, messages: OutboxMessage[]): Promise<'created' | 'exists'>;
  /** A store's payments in the mode whose dispute is open, at most `limit` (any order). */
  openDisputes(scope: StoreScope, limit: number): Promise<PaymentDoc[]>;
  /**
   * Changes one payment as `decide` says, given the payment as it is; `seen` saves the first read
   * when the caller has just read the payment. Throws PaymentWriteContended when it lost too often.
   */
  write<R extends string>(
    id: string,
    decide: (doc: PaymentDoc) => Change | Skip<R>,
    seen?: PaymentDoc,
  ): Promise<WriteResult<R>>;
  /**
   * The outbox relay's pass: publishes the messages their writer will not, those of a writer silent
   * for `staleAfterMs` (dead) among them.
   */
  relay(staleAfterMs: number): Promise<RelayPass>;
  /** Finishes what is under way: publishes what waits to be published again, once (shutdown). */
  flush(): Promise<void>;
}

/** What a relay pass found owed, in payments: apart, since only the first were published. */
export interface RelayPass {
  /** Payments whose messages the pass published. */
  relayed: number;
  /** Payments whose write's publish failed, waiting for JetStream in this process (PublishRetry). */
  waiting: number;
}

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

/** Publishes messages; throws when JetStream did not take them all. */
export type Publish = (messages: OutboxMessage[]) => Promise<void>;

/** A new payment: every field but what storage derives (the list's keys, the outbox). */
export type NewPayment = PaymentState;

/**
 * How many times a change is decided again when other writers keep changing the payment first.
 * Each loss means another write landed, so this bounds work, not time.
 */
export const MAX_DECISIONS = 20;

export class PaymentWriteContended extends Error {
  /** Contention, not a bug: the caller may try again (a 503, or a redelivery). */
  readonly transient = true;

  constructor(paymentId: string) {
    super(`payment ${paymentId} changed under ${MAX_DECISIONS} decisions in a row`);
    this.name = 'PaymentWriteContended';
  }
}

/** A decided change as it is written: the fields to set, with the next revision, and what it owes (stamped as it is stored). */
export interface PlannedWrite {
  set: Partial<PaymentDoc>;
  owed: OutboxMessage[];
}

/**
 * The write protocol, kept by every implementation: `change` is decided on the payment as read,
 * and `land` writes it conditionally on the revision read, answering the payment as written, or
 * null when another writer got there first; then the payment is read again and `decide` asked
 * again, so a decision is always made on the current state. `seen` saves the first read when the
 * caller has just read the payment.
 */
export async function writeDecided<R extends string>(
  id: string,
  read: (id: string) => Promise<PaymentDoc | null>,
  decide: (doc: PaymentDoc) => Change | Skip<R>,
  seen: PaymentDoc | undefined,
  land: (doc: PaymentDoc, plan: PlannedWrite) => Promise<PaymentDoc | null>,
): Promise<WriteResult<R>> {
  let doc = seen ?? (await read(id));
  for (let decisions = 0; decisions < MAX_DECISIONS; decisions++) {
    if (!doc) return { written: false, reason: 'not_found', doc: null };
    const decision = decide(doc);
    if ('skip' in decision) return { written: false, reason: decision.skip, doc };
    const written = await land(doc, planWrite(doc, decision));
    if (written) return { written: true, doc: written };
    doc = await read(id);
  }
  throw new PaymentWriteContended(id);
}

/**
 * What a change writes: the next revision, the list key when the status moves, its messages,
 * counter moves and the movements of the store's money it makes (balance-transactions.ts).
 */
function planWrite(doc: PaymentDoc, change: Change): PlannedWrite {
  const rev = doc.rev + 1;
  const status = change.set.status ?? doc.status;
  const now = new Date();
  const moved = movementsOfChange(doc, { ...doc, ...change.set }, now).map(movementMessage);
  return {
    set: {
      ...change.set,
      rev,
      ...(status !== doc.status && { statusKey: statusKey(scopeOf(doc), status, doc.createdAt, doc._id) }),
    },
    owed: [...change.messages, ...countsOfChange(doc, rev, doc.status, status), ...moved],
  };
}

/** Messages as a write stores them: stamped with the instant, and the writer when there is one. */
export function outboxEntries(messages: OutboxMessage[], at: Date, by?: string): OutboxEntry[] {
  return messages.map((message) => ({ ...message, at, ...(by !== undefined && { by }) }));
}

/** An increment of a store's counter in the payment's mode, counted once per revision of the payment that causes it. */
function countMessage(doc: CountedPayment, rev: number, key: PaymentCountKey, by: number) {
  return { subject: Subjects.paymentCount(scopeOf(doc), key), msgId: `count:${doc._id}:${rev}:${key}`, increment: by };
}

type CountedPayment = Pick<PaymentDoc, '_id' | 'storeId' | 'livemode'>;

/**
 * The store's payment counts (the list's total) are JetStream counters: a new payment owes one more
 * in `all` and in its status.
 */
export function countsOfInsert(doc: CountedPayment & Pick<PaymentDoc, 'rev' | 'status'>): OutboxMessage[] {
  return [countMessage(doc, doc.rev, 'all', 1), countMessage(doc, doc.rev, doc.status, 1)];
}

/** What moving a payment from one status to another (revision `rev`) does to its store's counters. */
export function countsOfChange(
  doc: CountedPayment,
  rev: number,
  from: PaymentStatus,
  to: PaymentStatus,
): OutboxMessage[] {
  return from === to ? [] : [countMessage(doc, rev, from, -1), countMessage(doc, rev, to, 1)];
}
