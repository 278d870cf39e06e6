import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import mongoose, { Schema } from 'mongoose';

interface LockDoc {
  _id: string;
  token: string;
  until: Date;
}

const LockModel = mongoose.model<LockDoc>(
  'PaymentLock',
  new Schema<LockDoc>(
    {
      _id: { type: String, required: true },
      token: { type: String, required: true },
      until: { type: Date, required: true },
    },
    { collection: 'payment_locks', versionKey: false },
  ),
);

const DUPLICATE_KEY = 11000;
/** A holder that died leaves its lock behind; after this long anyone may break it. */
const LEASE_MS = 10_000;
const WAIT_MS = 15_000;

export class PaymentLockTimeout extends Error {
  constructor(paymentId: string) {
    super(`payment ${paymentId} stayed locked for ${WAIT_MS} ms`);
    this.name = 'PaymentLockTimeout';
  }
}

/**
 * Runs `fn` as the only writer of one payment document, across every replica. Why: on MongoDB a
 * conditional single-document update is atomic, but FerretDB 1.24 (SQLite) applies an update as
 * read, change, write back the whole document, outside any transaction (FerretDB issue #3040):
 * two racing conditional updates can both succeed, and a write can undo another. Inserting a
 * unique _id is atomic on both, so the lock is an insert; every writer of a payment document
 * (transitions, the outbox relay, deadlines, charge completion) takes it. Not reentrant.
 */
export async function withPaymentLock<T>(paymentId: string, fn: () => Promise<T>): Promise<T> {
  const token = randomUUID();
  const giveUpAt = Date.now() + WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    try {
      await LockModel.create({ _id: paymentId, token, until: new Date(Date.now() + LEASE_MS) });
      break;
    } catch (err) {
      if ((err as { code?: number }).code !== DUPLICATE_KEY) throw err;
      const held = await LockModel.findById(paymentId).lean<LockDoc>();
      if (held && held.until.getTime() < Date.now()) await LockModel.deleteOne({ _id: paymentId, token: held.token });
      if (Date.now() > giveUpAt) throw new PaymentLockTimeout(paymentId);
      await sleep(delay);
    }
  }
  try {
    return await fn();
  } finally {
    await LockModel.deleteOne({ _id: paymentId, token });
  }
}
