import './tracing';
import { Consumers, DispatcherRpc, PaymentEventSchema, QueueGroups, type PaymentEvent } from '@pix/contracts';
import { FactVerifier, jetstream, serveRpc, startConsumer, type HandlerOutcome } from '@pix/messaging';
import { writeStartFailure } from '@pix/observability';
import { connectDatabase, connectMessaging, FactGate, RefusedFacts, Service } from '@pix/runtime';
import { serveWebhookRpcs } from './admin-rpc';
import { AttemptRunner, CLAIM_LEASE_MS } from './attempts';
import { config } from './config';
import { serveDashboardRpcs } from './dashboard-rpc';
import { deliver } from './deliver';
import { DeliveryLog } from './delivery-log';
import { EndpointLimiter } from './endpoint-limiter';
import { serveEventRpcs } from './events-rpc';
import { createMetrics } from './metrics';
import { parseSchedule } from './schedule';
import { SecretsCache } from './secrets';
import { StallSweep } from './stall-sweep';

/**
 * Payment events taken in at once per replica, beyond the attempts in flight: an event whose
 * endpoint has no free slot is handed to WEBHOOK_ATTEMPTS at once, so however slow the endpoints
 * that hold the slots, the rest of the stream keeps moving.
 */
const INTAKE_HEADROOM = 16;

async function main(): Promise<void> {
  const service = await Service.start('webhook-dispatcher', config);
  const { logger } = service;
  const schedule = parseSchedule(config.WEBHOOK_RETRY_SCHEDULE);
  const metrics = createMetrics(service.registry);

  await connectDatabase(service, config);
  const log = await DeliveryLog.open(
    { retentionMs: config.WEBHOOK_LOG_RETENTION, stallAfterMs: config.WEBHOOK_STALL_AFTER, leaseMs: CLAIM_LEASE_MS },
    logger,
  );
  // Where the dispatcher keeps aside the payment events it refused for their signature: its dead letter.
  const refused = await RefusedFacts.open({ collection: 'refused_payment_facts' }, logger);
  service.mark('indexes');

  const nc = await connectMessaging(service, config);
  const js = jetstream(nc);

  const secrets = new SecretsCache(nc, logger);
  await secrets.start();
  service.onShutdown('secrets cache', () => secrets.stop());

  const limiter = new EndpointLimiter(
    { perEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY, total: config.WEBHOOK_MAX_IN_FLIGHT },
    metrics.inFlight,
  );
  // Registered before the PAYMENTS consumer, so it stops after it: a last event taken in still
  // finds its attempt made or handed back.
  const send = (event: PaymentEvent, url: string, signWith: string[]) =>
    deliver(event, url, signWith, {
      timeoutMs: config.WEBHOOK_TIMEOUT,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
  const runner = new AttemptRunner({ js, schedule, logger, metrics, secrets, log, limiter, send });
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
  service.onShutdown('attempts consumer', () => attempts.stop());

  // The PAYMENTS message is acked once its delivery is recorded and its first attempt made (its
  // result recorded), or handed to WEBHOOK_ATTEMPTS: an event never waits for a busy endpoint here.
  // A webhook is signed for what payments signed only: any other event is kept aside, acked, never sent.
  const verifier = new FactVerifier(config.PAYMENT_FACTS_PUBLIC_KEYS);
  const paymentFacts = new FactGate(verifier, logger, refused);
  const takeIn = async (raw: unknown): Promise<HandlerOutcome> => {
    const parsed = PaymentEventSchema.safeParse(raw);
    if (!parsed.success) {
      logger.error({ issues: parsed.error.issues }, 'malformed payment event; dropped');
      return { ack: true };
    }
    await runner.takeIn(parsed.data);
    return { ack: true };
  };
  const consumer = await startConsumer(
    nc,
    // In parallel: a later event of a payment waits a moment for the earlier ones this replica
    // has in hand (events-in-hand.ts), and one recorded before an earlier one waits for it (the
    // order hold), so taking them in at once costs no order.
    Consumers.dispatcherPayments,
    { logger, parallel: true, maxInFlight: config.WEBHOOK_MAX_IN_FLIGHT + INTAKE_HEADROOM },
    async (msg) => ((await paymentFacts.admit(msg)) ? takeIn(msg.json()) : { ack: true }),
  );
  service.addReadinessCheck('payments consumer', consumer.isBound);
  service.onShutdown('payments consumer', () => consumer.stop());
  service.mark('consumers');
  // First of the two: an attempt waiting for a slot is handed back at SIGTERM, not given the slot
  // that an attempt in flight frees while the consumers drain.
  service.onShutdown('endpoint slots', () => limiter.stop());

  const stallSweep = new StallSweep(
    js,
    log,
    config.WEBHOOK_STALL_AFTER,
    config.WEBHOOK_STALL_SWEEP_INTERVAL,
    logger,
    metrics,
  );
  stallSweep.start();
  service.onShutdown('stall check', () => stallSweep.stop());

  const rpc = { queue: QueueGroups.webhookDispatcher, logger };
  const subscriptions = [
    ...serveWebhookRpcs(nc, log, logger),
    serveRpc(nc, DispatcherRpc.refusedFacts, async (req) => ({ facts: await refused.newest(req.limit) }), rpc),
    serveRpc(
      nc,
      DispatcherRpc.reapplyFacts,
      () => refused.reapply(verifier, async (_subject, payload) => takeIn(JSON.parse(payload)), logger),
      rpc,
    ),
    ...serveEventRpcs(nc, log, logger),
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
  writeStartFailure('webhook-dispatcher', err);
  process.exit(1);
});
