import { randomUUID } from 'node:crypto';
import mongoose from 'mongoose';
import { txidFor, type PaymentStatus } from '@pix/contracts';
import { PaymentModel, type PaymentDoc } from '../../services/payments/src/model';
import { transition } from '../../services/payments/src/transitions';
import { sharedStack } from '../support/stack';

function pendingPayment(): PaymentDoc {
  const id = randomUUID();
  return {
    _id: id,
    txid: txidFor(id),
    storeId: 'race-store',
    status: 'pending',
    amountCents: 1000,
    email: null,
    observation: null,
    webhookUrl: null,
    isPublic: true,
    createdAt: new Date(),
    qrCodeUrl: null,
    qrCopyPaste: null,
    chargeCreated: true,
    chargeNextAttemptAt: null,
    chargeAttempts: 1,
    expiresAt: new Date(Date.now() + 60_000),
    paidEndToEndId: null,
    paidAmountCents: null,
    deadlineAt: null,
    refundReason: null,
    refund: null,
    eventSeq: 1,
    outbox: {},
    outboxPending: 0,
  };
}

/**
 * Racing triggers on one payment (as from several replicas) against the real FerretDB: exactly one
 * transition wins and exactly one event is stored. FerretDB applies conditional updates
 * non-atomically, so this holds only because every writer takes the payment's lock.
 */
describe('racing transitions of one payment', () => {
  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoUrl.replace(/\/[^/]*$/, '/transition_race'));
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  it('lets exactly one of four concurrent transitions happen, with one event', async () => {
    const targets: PaymentStatus[] = ['approved', 'review', 'not_approved', 'rejected'];
    for (let round = 0; round < 8; round++) {
      const doc = pendingPayment();
      await PaymentModel.create(doc);
      const results = await Promise.all(targets.map((to) => transition(doc._id, 'pending', to)));
      const winners = results.filter((r) => r.changed);
      expect(winners).toHaveLength(1);
      const stored = await PaymentModel.findById(doc._id).lean<PaymentDoc>();
      expect(stored?.status).toBe(winners[0]?.doc?.status);
      expect(stored?.eventSeq).toBe(2);
      expect(Object.keys(stored?.outbox ?? {})).toHaveLength(1);
      expect(stored?.outboxPending).toBe(1);
    }
  });
});
