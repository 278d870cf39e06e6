import { MongoNetworkError } from 'mongodb';
import mongoose from 'mongoose';
import { createLogger } from '@pix/observability';
import { PaymentModel, type OutboxMessage, type PaymentDoc } from '../../services/payments/src/model';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { pendingPaymentDoc } from './payment-fixture';
import { sharedStack } from '../support/stack';

function newPayment(): PaymentDoc {
  return pendingPaymentDoc({ storeId: 'outcome-store', chargeCreated: false });
}

const created = (id: string): OutboxMessage => ({
  subject: 'payments.events.created',
  msgId: `evt_${id}`,
  body: { id },
});

/**
 * A payment insert that fails with anything but a duplicate id has an unknown outcome: the database
 * may have stored it (one killed as it committed answers an error to a write it kept). Its intent
 * stays open, so the recovery sweep publishes the event when the payment is there, and drops the
 * intent when it is not. Against the real FerretDB; the failure is injected at the driver's answer.
 */
describe('a payment insert whose outcome is unknown', () => {
  const published: OutboxMessage[] = [];
  const store = new PaymentStore(async (messages) => void published.push(...messages), createLogger('test', 'silent'));
  const realCreate = PaymentModel.create.bind(PaymentModel);

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoUrl.replace(/\/[^/]*$/, '/payment_insert_outcome'));
    await syncPaymentIndexes();
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  const openIntentOf = async (id: string) => (await store.openIntents(100)).find((i) => i.paymentId === id);

  it('keeps the intent of a payment stored before the error, and the sweep publishes its event', async () => {
    const doc = newPayment();
    jest.spyOn(PaymentModel, 'create').mockImplementationOnce((async (...args: unknown[]) => {
      await (realCreate as (...a: unknown[]) => Promise<unknown>)(...args);
      throw new MongoNetworkError('connection 7 to 127.0.0.1:27017 closed');
    }) as never);

    await expect(store.insert(doc, [created(doc._id)])).rejects.toThrow(MongoNetworkError);
    expect(await store.byId(doc._id)).not.toBeNull();
    expect(published).toEqual([]);

    const intent = await openIntentOf(doc._id);
    expect(intent).toBeDefined();
    expect(await store.recover(intent!)).toBe('published');
    expect(published).toEqual([created(doc._id)]);
    expect(await openIntentOf(doc._id)).toBeUndefined();
  });

  it('keeps the intent of a payment not stored, and the sweep drops it; the next create makes it', async () => {
    const doc = newPayment();
    published.length = 0;
    jest.spyOn(PaymentModel, 'create').mockRejectedValueOnce(new MongoNetworkError('read ECONNRESET'));

    await expect(store.insert(doc, [created(doc._id)])).rejects.toThrow(MongoNetworkError);
    const intent = await openIntentOf(doc._id);
    expect(intent).toBeDefined();
    expect(await store.recover(intent!)).toBe('dropped');
    expect(published).toEqual([]);

    expect(await store.insert(doc, [created(doc._id)])).toBe('created');
    expect(published).toEqual([created(doc._id)]);
  });
});
