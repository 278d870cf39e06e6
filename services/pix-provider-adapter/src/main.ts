import './tracing';
import express from 'express';
import { AdapterRpc, Consumers, QueueGroups, SandboxRpc, Streams, Subjects } from '@pix/contracts';
import {
  callerGone,
  FactSigner,
  jetstream,
  serveRpc,
  signingJetStream,
  startConsumer,
  SubjectCount,
} from '@pix/messaging';
import { Counter, Gauge, observeHttp, writeStartFailure } from '@pix/observability';
import { closeHttpServer, connectDatabase, connectMessaging, listen, Service } from '@pix/runtime';
import { CALLBACK_REFUSALS } from './callback-readback';
import { callbackRouter } from './callbacks';
import { CallbackRegistration } from './callback-registration';
import { readCharge } from './charge-reads';
import { config } from './config';
import { pspConnection } from './psp-connection';
import { PspCommands } from './psp-commands';
import { Reconciliation } from './reconciliation';
import { ToldFacts } from './told-facts';
import { ReconciliationCursor } from './reconciliation-cursor';
import { SandboxCommands } from './sandbox-commands';

/** PSP commands (refunds, charge removals) each replica works on at once: each is a PSP round trip or two. */
const COMMANDS_IN_FLIGHT = 16;

async function main(): Promise<void> {
  const service = await Service.start('pix-provider-adapter', config);
  const { logger } = service;

  await connectDatabase(service, config);

  const nc = await connectMessaging(service, config);
  // Every fact the adapter states (pix.events.*: callbacks, reconciliations, charge reads, refund
  // settlements) leaves through this client, signed with the adapter's key: payments applies no other.
  const js = signingJetStream(jetstream(nc), new FactSigner(config.FACT_SIGNING_KEY));

  const pspRequests = new Counter({
    name: 'psp_requests_total',
    help: 'Calls to the PSP, by operation and outcome (after retries)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [service.registry],
  });
  const callbackUrl = `https://${config.HTTP_HOST}:${config.HTTP_PORT}/psp/callbacks`;
  // Facts this replica stored lately, kept longer than a reconciliation window (interval + overlap) reaches back.
  const told = new ToldFacts(2 * (config.RECONCILE_INTERVAL + config.RECONCILE_OVERLAP));
  const psp = pspConnection(config, (operation, outcome) => pspRequests.inc({ operation, outcome }));
  const provider = psp.client;

  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(logger));
  const callbacksRefused = new Counter({
    name: 'psp_callbacks_refused_total',
    help: 'PSP callbacks (or Pix in them) not believed, by reason: foreign_certificate, readback_mismatch, readback_not_found, readback_failed (left to the next try and reconciliation)',
    labelNames: ['reason'] as const,
    registers: [service.registry],
  });
  // Every reason from zero, so an alert sees the first refusal as an increase.
  for (const reason of CALLBACK_REFUSALS) callbacksRefused.inc({ reason }, 0);
  app.use(
    '/psp/callbacks',
    callbackRouter({ js, told, provider, pins: psp.callbackPins, refused: callbacksRefused, logger }),
  );
  const server = await listen(app, config.HTTP_PORT, config.HTTP_HOST, psp.callbackTls);
  service.onShutdown('http server', () => closeHttpServer(server));
  if (config.PIX_CALLBACK_URL) {
    const registered = new Gauge({
      name: 'psp_callback_registered',
      help: '1 once the PSP took the callback URL registered at start (PIX_CALLBACK_URL), 0 while it is retried',
      registers: [service.registry],
    });
    const registration = new CallbackRegistration(
      (webhookUrl) => provider.registerWebhook(webhookUrl),
      config.PIX_CALLBACK_URL,
      (done) => registered.set(done ? 1 : 0),
      logger,
    );
    registration.start();
    service.onShutdown('callback registration', () => registration.stop());
  }
  const pspCommands = new PspCommands(
    provider,
    js,
    logger,
    new Counter({
      name: 'pix_commands_total',
      help: "payments' commands to the PSP (refund, cancel) by how each try ended: done, refused, processing (read back later) or retried",
      labelNames: ['kind', 'outcome'] as const,
      registers: [service.registry],
    }),
  );
  const awaiting = new SubjectCount(nc, Streams.pixCommands);
  new Gauge({
    name: 'pix_refunds_awaiting_psp',
    help: 'Refunds waiting on the PSP: a retry while it is away, or a read-back while it processes them (their one schedule each on PIX_COMMANDS)',
    registers: [service.registry],
    // Counted when scraped: one stream info request, whatever the refunds. NATS away keeps the last
    // count rather than failing the whole scrape.
    async collect() {
      try {
        this.set(await awaiting.of(Subjects.pixCommandSchedule('refund', '>')));
      } catch (err) {
        logger.warn({ err }, 'refunds awaiting the PSP not counted');
      }
    },
  });
  const commandsConsumer = await startConsumer(
    nc,
    // One payment's commands in order (a refund, its read-back); different payments at once.
    Consumers.adapterCommands,
    {
      logger,
      parallel: true,
      serializeBy: (msg) => (msg.json() as { txid?: string }).txid,
      maxInFlight: COMMANDS_IN_FLIGHT,
      traceOf: (msg) => PspCommands.traceOf(msg),
    },
    (msg) => pspCommands.handle(msg),
  );
  service.addReadinessCheck('psp commands consumer', commandsConsumer.isBound);
  service.onShutdown('psp commands consumer', () => commandsConsumer.stop());

  const reconciledFound = new Counter({
    name: 'pix_reconciliation_found_total',
    help: 'Facts reading the PSP added, by source (listing: GET /pix; charge_read: GET /cob before an expiry): Pix or refund settlements whose callback never came',
    labelNames: ['source'] as const,
    registers: [service.registry],
  });
  const reconciliation = new Reconciliation(
    provider,
    js,
    told,
    await ReconciliationCursor.open(logger),
    { intervalMs: config.RECONCILE_INTERVAL, overlapMs: config.RECONCILE_OVERLAP },
    {
      found: reconciledFound,
      listed: new Counter({
        name: 'pix_reconciliation_listed_total',
        help: 'Pix the PSP listed to reconciliations (GET /pix), told before or not',
        registers: [service.registry],
      }),
      runs: new Counter({
        name: 'pix_reconciliation_runs_total',
        help: 'Reconciliations with the PSP, by outcome: completed, failed (read again next time), skipped (another replica just did it)',
        labelNames: ['outcome'] as const,
        registers: [service.registry],
      }),
      completedAt: new Gauge({
        name: 'pix_reconciliation_completed_timestamp_seconds',
        help: 'When the last complete reconciliation with the PSP ended, by any replica',
        registers: [service.registry],
      }),
    },
    logger,
  );
  reconciliation.start();
  service.onShutdown('reconciliation', () => reconciliation.stop());

  const rpc = { queue: QueueGroups.pixProviderAdapter, logger };
  const subscriptions = [
    serveRpc(nc, AdapterRpc.createCharge, (req, msg) => provider.createCharge(req, callerGone(msg)), rpc),
    serveRpc(
      nc,
      AdapterRpc.readCharge,
      (req) => readCharge(provider, js, told, logger, reconciledFound, req.txid),
      rpc,
    ),
  ];
  if (config.PIX_PROVIDER === 'sandbox' && config.PSP_BACKOFFICE_URL) {
    // The sandbox's PSP is the simulator: its back office plays the payer (never a real PSP's).
    const commands = new SandboxCommands(config.PSP_BACKOFFICE_URL);
    subscriptions.push(
      serveRpc(
        nc,
        SandboxRpc.pay,
        (req, msg) =>
          commands.pay(req.paymentId, req.amountCents, req.late ?? false, req.dropCallback ?? false, callerGone(msg)),
        rpc,
      ),
      serveRpc(nc, SandboxRpc.review, (req, msg) => commands.review(req.paymentId, callerGone(msg)), rpc),
      serveRpc(nc, SandboxRpc.clear, (req, msg) => commands.clear(req.paymentId, callerGone(msg)), rpc),
      serveRpc(nc, SandboxRpc.reject, (req, msg) => commands.reject(req.paymentId, callerGone(msg)), rpc),
      serveRpc(
        nc,
        SandboxRpc.failNextRefund,
        (req, msg) => commands.failNextRefund(req.paymentId, callerGone(msg)),
        rpc,
      ),
    );
  }
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ provider: config.PIX_PROVIDER, callbackUrl });
}

main().catch((err: unknown) => {
  writeStartFailure('pix-provider-adapter', err);
  process.exit(1);
});
