import mongoose from 'mongoose';
import { createLogger } from '@pix/observability';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { countsOf, describeStorageContract } from '../../services/payments/src/testing/storage-contract';
import { sharedStack } from '../support/stack';

/**
 * PaymentStore on the real engine keeps the contract the unit tests' in-memory storage is held to
 * (services/payments/src/in-memory-payments.test.ts): the same cases, against both.
 */
describe('PaymentStore keeps the storage contract', () => {
  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/payment_storage_contract'));
    await syncPaymentIndexes();
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  // The read model is not the storage's contract: the views owed are only counted here.
  describeStorageContract((publish, published) => ({
    store: new PaymentStore(publish, countsOf(published), createLogger('test', 'silent'), {
      write: () => Promise.resolve(),
    }),
  }));
});
