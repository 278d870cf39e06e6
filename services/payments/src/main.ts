import './tracing';
import mongoose from 'mongoose';
import {
  Consumers,
  CreatePaymentRequestSchema,
  GetPaymentRequestSchema,
  ListPaymentsRequestSchema,
  PaymentQrRequestSchema,
  PaymentTransitionRequestSchema,
  QueueGroups,
  Streams,
  Subjects,
} from '@pix/contracts';
import { ensureConsumer, ensureStreams, serveRpc, startConsumer } from '@pix/messaging';
import { connectDatabase, connectMessaging, Service } from '@pix/runtime';
import { adminTransition } from './admin-transition';
import { ChargeCompleter } from './charge-completer';
import { config } from './config';
import { createPaymentOnce } from './create-once';
import { DeadlineRunner } from './deadlines';
import { registerPaymentMetrics } from './metrics';
import { OutboxRelay } from './outbox';
import { onPixEvent } from './pix-events';
import { getPayment, listPayments, qrCopyPasteOf } from './queries';

async function main(): Promise<void> {
  const service = await Service.start('payments', config);
  const { logger } = service;

  await connectDatabase(service, config.MONGO_URL);
  await mongoose.model('Payment').syncIndexes();

  const nc = await connectMessaging(service, config.NATS_URL);
  await ensureStreams(nc, config.JETSTREAM_REPLICAS);
  await ensureConsumer(nc, Streams.pix.name, {
    durable_name: Consumers.paymentsPix,
    filter_subject: 'pix.events.>',
  });

  registerPaymentMetrics(service.registry);
  const deps = { nc, config, logger };

  const relay = new OutboxRelay(nc, logger, config.OUTBOX_POLL_INTERVAL, config.OUTBOX_FAIL_POINT ?? null);
  relay.start();
  service.onShutdown('outbox relay', () => relay.stop());

  const completer = new ChargeCompleter(deps, logger, config.DEADLINE_POLL_INTERVAL);
  completer.start();
  service.onShutdown('charge completer', () => completer.stop());

  const deadlines = new DeadlineRunner({ ...deps, onChange: () => relay.poke() });
  deadlines.start();
  service.onShutdown('deadlines', () => deadlines.stop());

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
    serveRpc(
      nc,
      { subject: Subjects.paymentsTransition, queue, schema: PaymentTransitionRequestSchema, logger },
      async (req) => {
        const moved = await adminTransition(req.paymentId, req.status);
        relay.poke();
        return moved;
      },
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
      const outcome = await onPixEvent(deps, msg.subject, msg.json());
      relay.poke();
      deadlines.poke();
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
