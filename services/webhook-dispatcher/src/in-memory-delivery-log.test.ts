import { CONTRACT_SETTINGS, describeDeliveryLogContract } from './testing/delivery-log-contract';
import { InMemoryDeliveryLog } from './testing/in-memory-delivery-log';

/** The unit tests' log keeps the protocol DeliveryLog keeps (tests/service/delivery-log-contract.test.ts). */
describe('InMemoryDeliveryLog keeps the delivery log contract', () => {
  describeDeliveryLogContract(() => {
    const log = new InMemoryDeliveryLog(CONTRACT_SETTINGS);
    return { log, read: async (eventId) => log.find(eventId) };
  });
});
