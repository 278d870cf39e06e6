import './tracing';
import { nanos } from '@nats-io/transport-node';
import { Consumers, PaymentEventSchema } from '@pix/contracts';
import { ensureConsumer, ensureStreams, jetstream, startConsumer } from '@pix/messaging';
import { connectDatabase, connectMessaging, Service } from '@pix/runtime';
import { serveWebhookRpcs } from './admin-rpc';
import { AttemptRunner, CLAIM_MARGIN_MS } from './attempts';
import { config } from './config';
import { serveDashboardRpcs } from './dashboard-rpc';
import { serveEventRpcs } from './events-rpc';
import { openDeliveryLog } from './delivery-log';
import { takeEvent } from './intake';
import { createMetrics } from './metrics';
import { parseSchedule } from './schedule';
import { SecretsCache } from './secrets';
import { StallSweep } from './stall-sweep';

/** Payment events taken in at once per replica: fewer than the database pool's connections (20 locally). */
const INTAKE_CONCURRENCY = 16;

async function main(): Promise<void> {
  const service = await Service.start('webhook-dispatcher', config);
  const { logger } = service;
  const schedule = parseSchedule(config.WEBHOOK_RETRY_SCHEDULE);
  const metrics = createMetrics(service.registry);

  await connectDatabase(service, config.MONGO_URL);
  await openDeliveryLog(
    { retentionMs: config.WEBHOOK_LOG_RETENTION, stallAfterMs: config.WEBHOOK_STALL_AFTER },
    logger,
  );

  const nc = await connectMessaging(service, config.NATS_URL);
  await ensureStreams(nc, config.JETSTREAM_REPLICAS, logger);
  await ensureConsumer(nc, Consumers.dispatcherPayments);
  // An attempt holds its message until its result is recorded: at most the timeout, plus slack.
  await ensureConsumer(nc, Consumers.dispatcherAttempts, { ack_wait: nanos(config.WEBHOOK_TIMEOUT + CLAIM_MARGIN_MS) });
  const js = jetstream(nc);

  const secrets = new SecretsCache(nc, logger);
  await secrets.start();
  service.onShutdown('secrets cache', () => secrets.stop());

  // Registered before the PAYMENTS consumer, so it stops after it: a last event taken in still
  // finds its attempt made or handed back.
  const runner = new AttemptRunner({ nc, config, schedule, logger, metrics, secrets });
  const attempts = await startConsumer(
    nc,
    Consumers.dispatcherAttempts,
    {
      logger,
      parallel: true,
      traceOf: (msg) => AttemptRunner.traceOf(msg),
    },
    (msg) => runner.handle(msg),
  );
  service.addReadinessCheck('attempts consumer', attempts.isBound);
  service.onShutdown('attempts consumer', () => {
    runner.stop();
    return attempts.stop();
  });

  // The PAYMENTS message is acked once its delivery is recorded and its first attempt is on
  // WEBHOOK_ATTEMPTS: nothing waits on this consumer however slow an endpoint is.
  const consumer = await startConsumer(
    nc,
    // In parallel: events of one payment are far apart, and one recorded before an earlier one
    // waits for it (the order hold), so taking them in at once costs no order. Bounded: a replica
    // restarted into a backlog took 64 at once, each waiting for one of the pool's connections,
    // until the waits timed out, the messages came back, and its readiness ping found none free.
    Consumers.dispatcherPayments,
    { logger, parallel: true, maxInFlight: INTAKE_CONCURRENCY },
    async (msg) => {
      const parsed = PaymentEventSchema.safeParse(msg.json());
      if (!parsed.success) {
        logger.error({ subject: msg.subject, seq: msg.seq }, 'malformed payment event; dropped');
        return { ack: true };
      }
      await takeEvent(js, parsed.data, schedule[0] ?? 0);
      return { ack: true };
    },
  );
  service.addReadinessCheck('payments consumer', consumer.isBound);
  service.onShutdown('payments consumer', () => consumer.stop());

  const stallSweep = new StallSweep(
    js,
    config.WEBHOOK_STALL_AFTER,
    config.WEBHOOK_STALL_SWEEP_INTERVAL,
    logger,
    metrics,
  );
  stallSweep.start();
  service.onShutdown('stall check', () => stallSweep.stop());

  const subscriptions = [
    ...serveWebhookRpcs(nc, logger),
    ...serveEventRpcs(nc, logger),
    ...serveDashboardRpcs(nc, logger),
  ];
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
