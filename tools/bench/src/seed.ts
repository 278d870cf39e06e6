import { randomBytes, randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { GatewayRpc, modeScope, statementDay, txidFor } from '@pix/contracts';
import { callRpc, incrementCounter, RpcUnavailable } from '@pix/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Collection, Document } from 'mongodb';
import { shapeDocument, type FieldShape, type ListKeys, type PaymentCounters } from './checkout';

export interface BenchStore {
  storeId: string;
  token: string;
}

/**
 * `count` payments of the store made one after the other through the public API (each with its
 * view in the read model, as a merchant's are); their ids.
 */
export async function createPaymentsThroughApi(
  gatewayUrl: string,
  store: BenchStore,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${gatewayUrl}/public-api/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 25.5 }),
    });
    if (!res.ok) throw new Error(`create answered ${res.status}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return ids;
}

/** Tries per store: a stack just started on a busy machine may not answer the first calls in time. */
const STORE_TRIES = 3;

/** Stores and their tokens, made the way an operator makes them (the admin CLI's RPC). */
/**
 * The store creation as the bench needs it: its id and test token only, so that a baseline from
 * before a field of the reply (a store's live credentials) is read as well.
 */
const storesCreate = {
  ...GatewayRpc.storesCreate,
  reply: GatewayRpc.storesCreate.reply.pick({ storeId: true, token: true }),
};

export async function createStores(nc: NatsConnection, count: number): Promise<BenchStore[]> {
  const stores: BenchStore[] = [];
  for (let i = 0; i < count; i++) {
    for (let tries = 1; ; tries++) {
      try {
        const reply = await callRpc(nc, storesCreate, { name: `bench ${i}` }, 30_000);
        stores.push({ storeId: reply.storeId, token: reply.token });
        break;
      } catch (err) {
        // A timed-out call may have made its store all the same: an unused store costs nothing.
        if (!(err instanceof RpcUnavailable) || tries === STORE_TRIES) throw err;
      }
    }
  }
  return stores;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const BATCH = 1000;

function alphanumerics(length: number): string {
  return randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length).toUpperCase();
}

/** Seeded payments are created at some time this far back, unless a burst says otherwise. */
export const HISTORY_MS = 30 * DAY_MS;

/**
 * A payment that has run its course (paid, or expired unpaid) at some time in the last
 * `createdWithinMs` (30 days: history that costs nothing unless something scans it; two minutes:
 * a store's flash sale). Fields as the services write them.
 */
export function historicPayment(
  storeId: string,
  gatewayUrl: string,
  keys: ListKeys | null,
  createdWithinMs = HISTORY_MS,
): Record<string, unknown> {
  const id = randomUUID();
  const createdAt = new Date(Date.now() - Math.random() * createdWithinMs);
  const paid = Math.random() < 0.8;
  const status = paid ? 'approved' : 'not_approved';
  const amountCents = 500 + Math.floor(Math.random() * 100_000);
  const txid = txidFor(id);
  return {
    _id: id,
    storeId,
    status,
    amountCents,
    email: 'customer@example.com',
    observation: 'order 1234',
    webhookUrl: null,
    isPublic: true,
    createdAt,
    txid,
    qrCodeUrl: new URL(`/public-api/v1/qrcodes/${id}.png`, gatewayUrl).toString(),
    // The length of a real BR Code with a PSP location URL.
    qrCopyPaste: `00020101021226850014br.gov.bcb.pix2563sandbox-psp.local/qr/v2/cobv/${txid}5204000053039865802BR5913BENCH STORE6009SAO PAULO62070503***6304ABCD`,
    chargeCreated: true,
    chargeNextAttemptAt: null,
    chargeAttempts: 1,
    expiresAt: new Date(createdAt.getTime() + DAY_MS),
    paidEndToEndId: paid ? `E${alphanumerics(31)}` : null,
    paidAmountCents: paid ? amountCents : null,
    // Paid within the minute after its creation.
    paidAt: paid ? new Date(createdAt.getTime() + 60_000) : null,
    deadlineAt: null,
    refundReason: null,
    // Today's shape: refunds as records, none here (a checkout from before them, whose model has no
    // such field, gets its own default for `refund` instead; shapeDocument keeps declared fields only).
    refunds: [],
    cancelledAt: null,
    // payment.created, then payment.status_changed (approved or not_approved).
    eventSeq: 2,
    // Written twice (created, then its status change): the revision a payment's next writer claims.
    rev: 2,
    ...(keys && {
      listKey: keys.listKey(storeId, createdAt, id),
      statusKey: keys.statusKey(storeId, status, createdAt, id),
    }),
  };
}

/**
 * Inserts `count` payments spread over `stores` (round robin) through the driver, in batches;
 * returns their ids with their store. Batches go two at a time so the database, not the round
 * trip, sets the pace.
 */
export async function seedPayments(
  payments: Collection<Document>,
  shape: Record<string, FieldShape>,
  keys: ListKeys | null,
  stores: readonly BenchStore[],
  count: number,
  gatewayUrl: string,
  createdWithinMs = HISTORY_MS,
): Promise<{ id: string; store: BenchStore; status: string }[]> {
  const seeded: { id: string; store: BenchStore; status: string }[] = [];
  await insertInBatches(payments, count, (i) => {
    const store = stores[i % stores.length] as BenchStore;
    const doc = shapeDocument(shape, historicPayment(store.storeId, gatewayUrl, keys, createdWithinMs));
    seeded.push({ id: doc._id as string, store, status: doc.status as string });
    return doc;
  });
  return seeded;
}

/** Inserts `count` documents made by `make` through the driver, BATCH at a time, two batches in flight. */
async function insertInBatches(
  collection: Collection<Document>,
  count: number,
  make: (i: number) => Document,
): Promise<void> {
  let pending: Promise<unknown>[] = [];
  for (let start = 0; start < count; start += BATCH) {
    const batch: Document[] = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) batch.push(make(i));
    pending.push(collection.insertMany(batch, { ordered: false }));
    if (pending.length === 2) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
}

/**
 * Adds seeded payments to the checkout's per-store counts (the list's total), as the payments
 * service does for each payment it writes: one increment per store and key, counted once by its
 * message id. Payments inserted behind the service's back would otherwise be listed but not counted.
 */
export async function countSeeded(
  js: JetStreamClient,
  counters: PaymentCounters,
  seeded: readonly { store: BenchStore; status: string }[],
  step: string,
): Promise<void> {
  const totals = new Map<string, number>();
  for (const { store, status } of seeded) {
    for (const key of ['all', status]) {
      const subject = counters.subject(store.storeId, key);
      totals.set(subject, (totals.get(subject) ?? 0) + 1);
    }
  }
  for (const [subject, by] of totals) await incrementCounter(js, subject, by, `bench-seed:${step}:${subject}`);
}

/**
 * Inserts `count` balance transactions of one store (test mode), each a Pix received, spread over
 * the last 30 days, as payments records them (balance-store.ts: its keys by time, its São Paulo
 * day): a store with `count` payments paid in a month, for the statement's cost. Through the
 * driver, in batches, two at a time.
 */
export async function seedMovements(movements: Collection<Document>, store: BenchStore, count: number): Promise<void> {
  const scope = modeScope(store.storeId, false);
  await insertInBatches(movements, count, () => {
    const id = randomUUID();
    const createdAt = new Date(Date.now() - Math.random() * HISTORY_MS);
    const at = createdAt.toISOString();
    return {
      _id: id,
      storeId: store.storeId,
      livemode: false,
      type: 'pix_received',
      amountCents: 500 + Math.floor(Math.random() * 100_000),
      paymentId: randomUUID(),
      refundId: null,
      endToEndId: `E${alphanumerics(31)}`,
      origin: null,
      nature: null,
      connection: 'test',
      createdAt,
      day: statementDay(createdAt),
      key: `${scope}|${at}|${id}`,
      typeKey: `${scope}|pix_received|${at}|${id}`,
      recordedAt: createdAt,
    };
  });
}
