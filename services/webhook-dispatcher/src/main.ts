import './tracing';
import mongoose from 'mongoose';
import { Consumers, PaymentEventSchema, Streams } from '@pix/contracts';
import { ensureConsumer, ensureStreams, jetstream, startConsumer } from '@pix/messaging';
import { connectDatabase, connectMessaging, Periodic, Service } from '@pix/runtime';
import { serveWebhookRpcs } from './admin-rpc';
import { config } from './config';
import { publishMissingDeadLetters } from './dead-letters';
import { recordDelivery } from './deliveries';
import { createMetrics } from './metrics';
import { ensureLogRetention } from './retention';
import { parseSchedule } from './schedule';
import { DeliveryScheduler } from './scheduler';

/** Dead letters a crash kept off the stream, and the log purge where TTL indexes are missing. */
const HOUSEKEEPING_INTERVAL_MS = 30_000;

async function main(): Promise<void> {
  const service = await Service.start('webhook-dispatcher', config);
  const { logger } = service;
  const schedule = parseSchedule(config.WEBHOOK_RETRY_SCHEDULE);
  const metrics = createMetrics(service.registry);

  await connectDatabase(service, config.MONGO_URL);
  await Promise.all([mongoose.model('WebhookDelivery').syncIndexes(), mongoose.model('WebhookAttempt').syncIndexes()]);
  const purgeLog = await ensureLogRetention(logger);

  const nc = await connectMessaging(service, config.NATS_URL);
  await ensureStreams(nc, config.JETSTREAM_REPLICAS);
  await ensureConsumer(nc, Streams.payments.name, {
    durable_name: Consumers.dispatcherPayments,
    filter_subject: 'payments.events.>',
  });

  const js = jetstream(nc);
  const housekeeping = new Periodic(
    async () => {
      await publishMissingDeadLetters(js);
      await purgeLog?.();
    },
    HOUSEKEEPING_INTERVAL_MS,
    (err) => logger.error({ err }, 'webhook housekeeping failed'),
  );
  housekeeping.start();
  service.onShutdown('housekeeping', () => housekeeping.stop());

  const scheduler = new DeliveryScheduler({ nc, config, schedule, logger, metrics });
  scheduler.start();
  service.onShutdown('delivery scheduler', () => scheduler.stop());

  // The stream message is acked once its delivery is recorded: from then on MongoDB drives the
  // attempts, so a slow endpoint never holds messages pending on the consumer.
  const consumer = await startConsumer(
    nc,
    { stream: Streams.payments.name, durable: Consumers.dispatcherPayments, logger },
    async (msg) => {
      const parsed = PaymentEventSchema.safeParse(msg.json());
      if (!parsed.success) {
        logger.error({ subject: msg.subject, seq: msg.seq }, 'malformed payment event; dropped');
        return { ack: true };
      }
      if (await recordDelivery(parsed.data, schedule[0] ?? 0)) scheduler.poke();
      return { ack: true };
    },
  );
  service.addReadinessCheck('payments consumer', consumer.isBound);
  service.onShutdown('payments consumer', () => consumer.stop());

  const subscriptions = serveWebhookRpcs(nc, logger, () => scheduler.poke());
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ schedule, allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS });
}

main().catch((err: unknown) => {
  process.stderr.write(`webhook-dispatcher failed to start: ${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
