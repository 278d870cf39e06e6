import { createLogger } from '@pix/observability';
import { AttemptModel, DeliveryModel } from '../../services/webhook-dispatcher/src/deliveries';
import { ensureLogRetention } from '../../services/webhook-dispatcher/src/retention';
import { useOwnDatabase } from './helpers';

/** The delivery log's retention, against the real FerretDB of the test stack (a database of its own). */
describe('delivery log retention', () => {
  useOwnDatabase('webhook_retention_test');

  it('purges expired entries where TTL indexes are missing, and never a pending delivery', async () => {
    // FerretDB 1.24 refuses TTL indexes, so the dispatcher gets a purge to run itself.
    const purge = await ensureLogRetention(createLogger('test', 'silent'));
    expect(purge).toEqual(expect.any(Function));

    const past = new Date(Date.now() - 1000);
    const base = { paymentId: 'p1', storeId: 's1', url: 'https://example.com/h', origin: 'https://example.com' };
    const event = {} as never;
    await DeliveryModel.create([
      {
        ...base,
        _id: 'evt_done',
        sequence: 1,
        event,
        status: 'delivered',
        run: 1,
        attempts: 1,
        createdAt: past,
        expiresAt: past,
      },
      {
        ...base,
        _id: 'evt_pending',
        sequence: 2,
        event,
        status: 'pending',
        run: 1,
        attempts: 0,
        createdAt: past,
        expiresAt: null,
      },
    ]);
    await AttemptModel.create([
      { _id: 'evt_done:1:1', eventId: 'evt_done', paymentId: 'p1', run: 1, attempt: 1, at: past, expiresAt: past },
      {
        _id: 'evt_pending:1:1',
        eventId: 'evt_pending',
        paymentId: 'p1',
        run: 1,
        attempt: 1,
        at: past,
        expiresAt: new Date(Date.now() + 60_000),
      },
    ]);

    await purge?.();
    expect((await DeliveryModel.find().lean()).map((d) => d._id)).toEqual(['evt_pending']);
    expect((await AttemptModel.find().lean()).map((a) => a._id)).toEqual(['evt_pending:1:1']);
  });
});
