import type { NatsConnection } from '@nats-io/transport-node';
import { connectAs } from '@pix/devstack';
import { createLogger, createRegistry } from '@pix/observability';
import { PaymentViews } from '../../services/gateway/src/payment-views';
import type { PaymentDoc } from '../../services/payments/src/model';
import { PaymentViewWriter } from '../../services/payments/src/payment-views';
import { toPayment } from '../../services/payments/src/presenter';
import { pendingPaymentDoc } from './payment-fixture';
import { sharedStack } from '../support/stack';

/**
 * The read model's writer and reader on the real NATS, as payments and the gateway use them: views
 * of one payment published in any order, again, or by writers racing, leave the bucket showing the
 * newest revision, and the gateway reads it for the payment's own store and mode only.
 */
describe('payment views', () => {
  const stack = sharedStack();
  const logger = createLogger('test', 'silent');
  const open: NatsConnection[] = [];
  let writer: PaymentViewWriter;
  let reader: PaymentViews;

  beforeAll(async () => {
    const [payments, gateway] = await Promise.all(
      (['payments', 'gateway'] as const).map((identity) => connectAs(stack.natsUrl, identity, stack.natsCredentials)),
    );
    open.push(payments!, gateway!);
    writer = await PaymentViewWriter.open(payments!, logger);
    reader = await PaymentViews.open(gateway!, logger, createRegistry('gateway'));
  });
  afterAll(() => Promise.all(open.map((nc) => nc.close())));

  /** The payment at revision `rev`: its status says which (each revision a status of its own). */
  const revisions = (count: number): PaymentDoc[] => {
    const first = { ...pendingPaymentDoc({ storeId: 'views-store' }), listKey: '', statusKey: '', outbox: [] };
    return Array.from({ length: count }, (_, i) => ({ ...first, rev: i + 1, amountCents: 1000 + i }));
  };
  const scope = { storeId: 'views-store', livemode: false };

  it('keeps the newest revision whatever order the views arrive in', async () => {
    const docs = revisions(6);
    for (const rev of [1, 4, 2, 6, 3, 5]) await writer.write(docs[rev - 1]!);
    expect(await reader.read(scope, docs[0]!._id)).toEqual(toPayment(docs[5]!));
  });

  it('keeps it when an older view is published again (a relay, a retry)', async () => {
    const docs = revisions(3);
    for (const doc of docs) await writer.write(doc);
    await writer.write(docs[0]!);
    await writer.write(docs[1]!);
    expect(await reader.read(scope, docs[0]!._id)).toEqual(toPayment(docs[2]!));
  });

  it('keeps the newest when writers race, each with a revision of its own', async () => {
    const docs = revisions(12);
    await Promise.all([...docs].reverse().map((doc) => writer.write(doc)));
    expect(await reader.read(scope, docs[0]!._id)).toEqual(toPayment(docs[11]!));
  });

  it("puts a payment's next view without reading the key first, on the sequence of its last put", async () => {
    const docs = revisions(3);
    await writer.write(docs[0]!);
    const sent = () => open[0]!.stats().outMsgs;
    const before = sent();
    await writer.write(docs[1]!);
    // One message: the conditional put. Before the writer remembered its puts, a read came first.
    expect(sent() - before).toBe(1);
    await writer.write(docs[0]!);
    expect(sent() - before).toBe(1);
    expect(await reader.read(scope, docs[0]!._id)).toEqual(toPayment(docs[1]!));
  });

  it('keeps the newest when two writers (two replicas) each remember their own puts', async () => {
    const other = await connectAs(stack.natsUrl, 'payments', stack.natsCredentials);
    open.push(other);
    const second = await PaymentViewWriter.open(other, logger);
    const docs = revisions(4);
    await writer.write(docs[0]!);
    await second.write(docs[1]!);
    // The first writer's last put of the key is not the key's last any more: it reads, then puts.
    await writer.write(docs[2]!);
    await second.write(docs[1]!);
    await writer.write(docs[1]!);
    expect(await reader.read(scope, docs[0]!._id)).toEqual(toPayment(docs[2]!));
    await second.write(docs[3]!);
    expect(await reader.read(scope, docs[0]!._id)).toEqual(toPayment(docs[3]!));
  });

  it('shows a view to its own store and mode only', async () => {
    const [doc] = revisions(1);
    await writer.write(doc!);
    expect(await reader.read(scope, doc!._id)).toEqual(toPayment(doc!));
    expect(await reader.read({ storeId: 'another-store', livemode: false }, doc!._id)).toBeUndefined();
    expect(await reader.read({ ...scope, livemode: true }, doc!._id)).toBeUndefined();
  });
});
