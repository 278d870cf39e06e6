import mongoose from 'mongoose';
import { probeRetention, type RetentionBranch } from '@pix/runtime';
import type { PaymentEvent } from '@pix/contracts';
import {
  claimAttempt,
  deliveriesOf,
  logPurge,
  markDelivered,
  openDeliveryLog,
  recordDelivery,
} from '../../services/webhook-dispatcher/src/delivery-log';
import { useOwnDatabase } from '../webhooks/helpers';

const DAY_MS = 24 * 60 * 60 * 1000;

function event(eventId: string, sequence: number): PaymentEvent {
  return {
    eventId,
    sequence,
    body: { id: 'pay_retention', storeId: 'store_retention', event: 'payment.created' },
  } as unknown as PaymentEvent;
}

/**
 * The delivery log's retention against the test stack's real database (a database of its own):
 * the branch the capability check chooses there, and finished entries leaving while pending ones
 * stay. On MongoDB the TTL index does it; on FerretDB, which refuses TTL indexes, the purge of
 * passed expiry days does.
 */
describe('delivery log retention', () => {
  useOwnDatabase('webhook_retention_test');
  let branch: RetentionBranch;

  beforeAll(async () => {
    branch = await probeRetention(mongoose.connection.db!);
    // A retention of one hour, with entries finished three days ago: long expired.
    await openDeliveryLog({ branch, retentionMs: 60 * 60 * 1000, stallAfterMs: 2 * 60 * 1000 });
  });

  it('declares the expiry index of the branch the server supports, and keeps it across starts', async () => {
    const server = (await mongoose.connection.db!.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: string };
    expect(branch).toBe(server.ferretdbVersion ? 'expiry-buckets' : 'ttl-index');
    await openDeliveryLog({ branch, retentionMs: 60 * 60 * 1000, stallAfterMs: 2 * 60 * 1000 });
    for (const collection of ['webhook_deliveries', 'webhook_attempts']) {
      const indexes = await mongoose.connection.db!.collection(collection).indexes();
      const expiry = indexes.find((index) => index.key.expiresAt === 1 || index.key.expiresOn === 1);
      if (branch === 'ttl-index') expect(expiry).toMatchObject({ key: { expiresAt: 1 }, expireAfterSeconds: 0 });
      else expect(expiry?.key).toEqual({ expiresOn: 1 });
    }
  });

  it('forgets expired deliveries and attempts, never a pending delivery', async () => {
    const finishedAt = new Date(Date.now() - 3 * DAY_MS);
    await recordDelivery(event('evt_done', 1), 'https://example.com/h', finishedAt, finishedAt);
    await claimAttempt({ eventId: 'evt_done', paymentId: 'pay_retention', run: 1, attempt: 1 }, finishedAt);
    await markDelivered('evt_done', 1, 1, finishedAt);
    await recordDelivery(event('evt_pending', 2), 'https://example.com/h', finishedAt, finishedAt);
    await claimAttempt({ eventId: 'evt_pending', paymentId: 'pay_retention', run: 1, attempt: 1 });
    expect((await deliveriesOf('pay_retention')).map((d) => d._id)).toEqual(['evt_done', 'evt_pending']);

    if (branch === 'expiry-buckets') await logPurge(branch, () => undefined).purge();
    // MongoDB's TTL monitor runs once a minute.
    const deadline = Date.now() + 75_000;
    let left = await deliveriesOf('pay_retention');
    while (left.length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      left = await deliveriesOf('pay_retention');
    }
    expect(left.map((d) => [d._id, d.attempts.map((a) => a._id)])).toEqual([['evt_pending', ['evt_pending:1:1']]]);
  }, 90_000);
});
