import './tracing';
import mongoose from 'mongoose';
import {
  Consumers,
  CreatePaymentRequestSchema,
  GetPaymentRequestSchema,
  ListPaymentsRequestSchema,
  PaymentQrRequestSchema,
  QueueGroups,
  Streams,
  Subjects,
} from '@pix/contracts';
import { connectNats, ensureConsumer, ensureStreams, isNatsConnected, serveRpc, startConsumer } from '@pix/messaging';
import { Counter } from '@pix/observability';
import { databaseReachable, Service } from '@pix/runtime';
import { ChargeCompleter } from './charge-completer';
import { config } from './config';
import { createPaymentOnce } from './create-once';
import { OutboxRelay } from './outbox';
import { onPixPaid } from './pix-events';
import { getPayment, listPayments, qrCopyPasteOf } from './queries';

async function main(): Promise<void> {
  const service = new Service({
    name: 'payments',
    opsPort: config.OPS_PORT,
    opsHost: config.OPS_HOST,
    logLevel: config.LOG_LEVEL,
    shutdownGraceMs: config.SHUTDOWN_GRACE,
  });
  const { logger } = service;
  await service.startOps();

  await mongoose.connect(config.MONGO_URL, { serverSelectionTimeoutMS: 10_000 });
  service.onShutdown('mongodb', () => mongoose.disconnect());
  service.addReadinessCheck('mongodb', () => databaseReachable(mongoose.connection.db));
  await mongoose.model('Payment').syncIndexes();

  const nc = await connectNats(config.NATS_URL, 'payments', logger);
  service.onShutdown('nats', () => nc.drain());
  service.addReadinessCheck('nats', () => isNatsConnected(nc));
  await ensureStreams(nc, config.JETSTREAM_REPLICAS);
  await ensureConsumer(nc, Streams.pix.name, {
    durable_name: Consumers.paymentsPix,
    filter_subject: 'pix.events.>',
  });

  const pspFailures = new Counter({
    name: 'psp_charge_failures_total',
    help: 'Charge creations the PSP did not complete at the first attempt',
    registers: [service.registry],
  });
  const deps = { nc, config, logger, onPspFailure: () => pspFailures.inc() };

  const relay = new OutboxRelay(
    nc,
    logger,
    config.OUTBOX_POLL_INTERVAL,
    process.env.OUTBOX_CRASH_BEFORE_PUBLISH === '1',
  );
  relay.start();
  service.onShutdown('outbox relay', () => relay.stop());

  const completer = new ChargeCompleter(deps, logger);
  completer.start();
  service.onShutdown('charge completer', () => completer.stop());

  const queue = QueueGroups.payments;
  const subscriptions = [
    serveRpc(
      nc,
      { subject: Subjects.paymentsCreate, queue, schema: CreatePaymentRequestSchema, logger },
      async (req) => {
        const payment = await createPaymentOnce(deps, req);
        relay.poke();
        return payment;
      },
    ),
    serveRpc(nc, { subject: Subjects.paymentsGet, queue, schema: GetPaymentRequestSchema, logger }, (req) =>
      getPayment(req.storeId, req.id),
    ),
    serveRpc(nc, { subject: Subjects.paymentsList, queue, schema: ListPaymentsRequestSchema, logger }, (req) =>
      listPayments(req.storeId, req.query),
    ),
    serveRpc(nc, { subject: Subjects.paymentsQr, queue, schema: PaymentQrRequestSchema, logger }, async (req) => ({
      qrCopyPaste: await qrCopyPasteOf(req.id),
    })),
  ];
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  const consumer = await startConsumer(
    nc,
    { stream: Streams.pix.name, durable: Consumers.paymentsPix, logger },
    async (msg) => {
      const outcome = await onPixPaid(msg.json(), logger);
      relay.poke();
      return outcome;
    },
  );
  service.addReadinessCheck('pix consumer', consumer.isBound);
  service.onShutdown('pix consumer', () => consumer.stop());

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ nats: config.NATS_URL });
}

main().catch((err: unknown) => {
  process.stderr.write(`payments failed to start: ${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
