import mongoose from 'mongoose';
import { DATABASE_CLIENT_OPTIONS } from '@pix/runtime';
import { createLogger } from '@pix/observability';
import type { OutboxMessage } from '../../services/payments/src/model';
import { PaymentStore, syncPaymentIndexes } from '../../services/payments/src/payment-store';
import { sharedStack } from '../support/stack';

/**
 * `count` PaymentStores racing on the real engine, each as a replica would hold one, over a database
 * of the test's own; everything they publish lands in `published`. Called inside a describe: it
 * connects before the tests, with a pool as large as the race so every write is in flight at once
 * (and command monitoring on, for the tests that count commands), and drops the database after them.
 */
export function racingStores(database: string, count: number) {
  const published: OutboxMessage[] = [];
  const publish = async (messages: OutboxMessage[]) => void published.push(...messages);
  const logger = createLogger('test', 'silent');
  const views = { write: () => Promise.resolve() };
  const stores = Array.from({ length: count }, () => new PaymentStore(publish, async () => 0, logger, views));

  beforeAll(async () => {
    await mongoose.connect(sharedStack().mongoAdminUrl!.replace(/\/[^/]*$/, `/${database}`), {
      ...DATABASE_CLIENT_OPTIONS,
      maxPoolSize: count,
    });
    await syncPaymentIndexes();
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.flush()));
    await mongoose.connection.dropDatabase();
    await mongoose.disconnect();
  });

  return { stores, published, logger };
}
