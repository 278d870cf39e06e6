import mongoose from 'mongoose';
import { DeliveryLog, findDelivery } from '../../services/webhook-dispatcher/src/delivery-log';
import {
  CONTRACT_SETTINGS,
  describeDeliveryLogContract,
} from '../../services/webhook-dispatcher/src/testing/delivery-log-contract';
import { sharedStack } from '../support/stack';

/**
 * DeliveryLog on the real engine keeps the contract the unit tests' in-memory log is held to
 * (services/webhook-dispatcher/src/in-memory-delivery-log.test.ts): the same cases, against both.
 */
describe('DeliveryLog keeps the delivery log contract', () => {
  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, '/delivery_log_contract'));
    await DeliveryLog.open(CONTRACT_SETTINGS);
  });
  afterAll(async () => {
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  describeDeliveryLogContract(() => ({ log: new DeliveryLog(CONTRACT_SETTINGS), read: findDelivery }));
});
