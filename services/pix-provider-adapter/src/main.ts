import './tracing';
import { AdapterRpc, Consumers, QueueGroups, SandboxRpc, Streams, Subjects } from '@pix/contracts';
import {
  bodyField,
  callerGone,
  FactSigner,
  jetstream,
  serveRpc,
  signingJetStream,
  startConsumer,
  SubjectCount,
} from '@pix/messaging';
import { Gauge, writeStartFailure } from '@pix/observability';
import { connectDatabase, connectMessaging, Service } from '@pix/runtime';
import { adapterMetrics } from './adapter-metrics';
import { readCharge } from './charge-reads';
import { config } from './config';
import { connectionSettings, PspConnections } from './psp-connection';
import { PspCommands } from './psp-commands';
import { DefenseCommands } from './defense-commands';
import { ToldFacts } from './told-facts';
import { listPix, readPix } from './pix-listing';
import { SandboxCommands } from './sandbox-commands';
import { serveConnection } from './serve-connection';

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

  const metrics = adapterMetrics(service.registry);
  // Facts this replica stored lately, kept longer than a reconciliation window (interval + overlap) reaches back.
  const told = new ToldFacts(2 * (config.RECONCILE_INTERVAL + config.RECONCILE_OVERLAP));
  const connections = new PspConnections();
  const settings = connectionSettings(config);
  for (const connection of settings) {
    await serveConnection(service, connection, { js, told, metrics, connections });
  }

  const pspCommands = new PspCommands((livemode) => connections.provider(livemode), js, logger, metrics.commands);
  const defenses = new DefenseCommands((livemode) => connections.provider(livemode), js, logger, metrics.commands);
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
      serializeBy: bodyField('txid'),
      maxInFlight: COMMANDS_IN_FLIGHT,
      traceOf: (msg) => PspCommands.traceOf(msg),
    },
    (msg) => (DefenseCommands.handles(msg) ? defenses.handle(msg) : pspCommands.handle(msg)),
  );
  service.addReadinessCheck('psp commands consumer', commandsConsumer.isBound);
  service.onShutdown('psp commands consumer', () => commandsConsumer.stop());

  const rpc = { queue: QueueGroups.pixProviderAdapter, logger };
  // A mode with no connection configured has nothing to check; one configured but not open is away.
  const configured = (livemode: boolean) =>
    settings.some((c) => c.livemode === livemode) ? connections.provider(livemode) : null;
  const subscriptions = [
    serveRpc(
      nc,
      AdapterRpc.createCharge,
      (req, msg) => connections.provider(req.livemode).createCharge(req, callerGone(msg)),
      rpc,
    ),
    serveRpc(
      nc,
      AdapterRpc.readCharge,
      (req) => readCharge(connections.provider(req.livemode), js, told, logger, metrics.found, req),
      rpc,
    ),
    serveRpc(nc, AdapterRpc.listPix, (req) => listPix(configured, req), rpc),
    serveRpc(nc, AdapterRpc.readPix, (req) => readPix(configured, req), rpc),
  ];
  if (config.PSP_BACKOFFICE_URL) {
    // The test connection's PSP is the simulator: its back office plays the payer (never a real
    // PSP's). It holds test charges only, so a live payment is not found there.
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
      serveRpc(
        nc,
        SandboxRpc.med,
        (req, msg) => commands.med(req.paymentId, req.amountCents, req.nature, callerGone(msg)),
        rpc,
      ),
    );
  }
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ connections: settings.map((c) => c.name) });
}

main().catch((err: unknown) => {
  writeStartFailure('pix-provider-adapter', err);
  process.exit(1);
});
