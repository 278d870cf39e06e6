import { InMemoryPayments } from './testing/in-memory-payments';
import { describeStorageContract } from './testing/storage-contract';

/** The unit tests' storage keeps the protocol PaymentStore keeps (tests/service/payment-storage-contract.test.ts). */
describe('InMemoryPayments keeps the storage contract', () => {
  describeStorageContract((publish) => ({ store: new InMemoryPayments(publish) }));
});
