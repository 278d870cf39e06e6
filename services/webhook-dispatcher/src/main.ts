import './tracing';
import { Consumers, PaymentEventSchema, Streams, Subjects, WebhookSecretsReplySchema } from '@pix/contracts';
import { callRpc, connectNats, ensureConsumer, ensureStreams, isNatsConnected, startConsumer } from '@pix/messaging';
import { Service } from '@pix/runtime';
import { config } from './config';
import { deliver } from './deliver';
import { parseSchedule } from './schedule';

async function main(): Promise<void> {
  const service = new Service({
    name: 'webhook-dispatcher',
    opsPort: config.OPS_PORT,
    opsHost: config.OPS_HOST,
    logLevel: config.LOG_LEVEL,
    shutdownGraceMs: config.SHUTDOWN_GRACE,
  });
  const { logger } = service;
  await service.startOps();
  const schedule = parseSchedule(config.WEBHOOK_RETRY_SCHEDULE);

  const nc = await connectNats(config.NATS_URL, 'webhook-dispatcher', logger);
  service.onShutdown('nats', () => nc.drain());
  service.addReadinessCheck('nats', () => isNatsConnected(nc));
  await ensureStreams(nc, config.JETSTREAM_REPLICAS);
  await ensureConsumer(nc, Streams.payments.name, {
    durable_name: Consumers.dispatcherPayments,
    filter_subject: 'payments.events.>',
  });

  const consumer = await startConsumer(
    nc,
    { stream: Streams.payments.name, durable: Consumers.dispatcherPayments, logger },
    async (msg) => {
      const parsed = PaymentEventSchema.safeParse(msg.json());
      if (!parsed.success) {
        logger.error({ subject: msg.subject, seq: msg.seq }, 'malformed payment event; dropped');
        return { ack: true };
      }
      const event = parsed.data;
      const url = event.body.webhookUrl;
      if (!url) return { ack: true };
      const { secrets } = await callRpc(
        nc,
        Subjects.storesWebhookSecrets,
        { storeId: event.body.storeId },
        WebhookSecretsReplySchema,
      );
      const attempt = msg.info.deliveryCount;
      const result = await deliver(event, url, secrets, config.WEBHOOK_TIMEOUT);
      const log = { eventId: event.eventId, paymentId: event.body.id, type: event.body.event, attempt };
      if (result.ok) {
        logger.info({ ...log, statusCode: result.statusCode }, 'webhook delivered');
        return { ack: true };
      }
      const nextDelay = schedule[attempt];
      if (nextDelay === undefined) {
        logger.error({ ...log, error: result.error }, 'webhook delivery gave up');
        return { ack: true };
      }
      logger.warn({ ...log, error: result.error, retryInMs: nextDelay }, 'webhook delivery failed; will retry');
      return { ack: false, retryInMs: nextDelay };
    },
  );
  service.addReadinessCheck('payments consumer', consumer.isBound);
  service.onShutdown('payments consumer', () => consumer.stop());

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ schedule });
}

main().catch((err: unknown) => {
  process.stderr.write(`webhook-dispatcher failed to start: ${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
