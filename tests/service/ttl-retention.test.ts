import mongoose from 'mongoose';
import type { PaymentEvent } from '@pix/contracts';
import { GatewayStorage, IDEMPOTENCY_WINDOW_MS } from '../../services/gateway/src/storage';
import { DeliveryLog, deliveriesOf } from '../../services/webhook-dispatcher/src/delivery-log';
import { useOwnDatabase } from '../webhooks/helpers';
import { testSealer } from '../support/sealer';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The engine's TTL task runs once a minute (pg_cron on DocumentDB, the TTL monitor on MongoDB). */
const TTL_PASS_MS = 100_000;

function event(eventId: string, sequence: number): PaymentEvent {
  return {
    eventId,
    sequence,
    paymentId: 'pay_retention',
    storeId: 'store_retention',
    webhookUrl: 'https://example.com/h',
    body: { id: 'pay_retention', storeId: 'store_retention', event: 'payment.created' },
  } as unknown as PaymentEvent;
}

/**
 * What expires leaves through the TTL indexes the schemas declare, deleted by the engine itself:
 * finished webhook deliveries (their attempts inside them) after the log's retention, Idempotency-Keys after
 * their window; a pending delivery and a fresh key stay. Against the real engine, whose TTL task is
 * seen removing them (a database of the test's own).
 */
describe('retention by TTL indexes', () => {
  useOwnDatabase('ttl_retention_test');
  let log: DeliveryLog;
  let storage: GatewayStorage;

  beforeAll(async () => {
    // A retention of one hour, with entries finished three days ago: long expired.
    log = await DeliveryLog.open({ retentionMs: 60 * 60 * 1000, stallAfterMs: 2 * 60 * 1000, leaseMs: 5000 });
    storage = await GatewayStorage.open(testSealer());
  });

  it('declares a TTL index on expiresAt for each expiring collection', async () => {
    for (const collection of ['webhook_deliveries', 'idempotency_keys']) {
      const indexes = await mongoose.connection.db!.collection(collection).indexes();
      expect(indexes).toContainEqual(expect.objectContaining({ key: { expiresAt: 1 }, expireAfterSeconds: 0 }));
    }
  });

  it(
    'sees the engine remove what expired, and keep the rest',
    async () => {
      const finishedAt = new Date(Date.now() - 3 * DAY_MS);
      const done = { eventId: 'evt_done', run: 1, attempt: 1 };
      const success = { outcome: 'success' as const, statusCode: 200, latencyMs: 3, error: null };
      await log.record(event('evt_done', 1), 'https://example.com/h', finishedAt, true, finishedAt);
      await log.conclude(done, success, { next: 'delivered' }, finishedAt);
      await log.record(event('evt_pending', 2), 'https://example.com/h', finishedAt, true, finishedAt);
      const input = {
        operation: 'create' as const,
        input: { amountCents: 1000, email: null, observation: null, webhookUrl: null, expiresInSeconds: null },
      };
      const claim = storage.idempotencyKeys.claim.bind(storage.idempotencyKeys);
      await claim('store_retention', 'old', input, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS - DAY_MS));
      const fresh = await claim('store_retention', 'fresh', input);
      const keys = () =>
        mongoose.connection
          .db!.collection('idempotency_keys')
          .countDocuments({ _id: { $regex: '^store_retention:' } as never });
      expect(await keys()).toBe(2);

      const deadline = Date.now() + TTL_PASS_MS;
      let left = await deliveriesOf('pay_retention');
      while ((left.length > 1 || (await keys()) > 1) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        left = await deliveriesOf('pay_retention');
      }
      expect(left.map((d) => [d._id, d.attempts.map((a) => a.key)])).toEqual([['evt_pending', ['1:1']]]);
      expect(await keys()).toBe(1);
      expect(await claim('store_retention', 'fresh', input)).toEqual(fresh);
    },
    TTL_PASS_MS + 20_000,
  );
});
