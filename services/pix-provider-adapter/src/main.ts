import './tracing';
import express from 'express';
import {
  CreateChargeRequestSchema,
  CreateRefundRequestSchema,
  QueueGroups,
  SandboxAnalysisRequestSchema,
  SandboxPayRequestSchema,
  Subjects,
} from '@pix/contracts';
import { callerGone, ensureStreams, jetstream, serveRpc } from '@pix/messaging';
import { Counter, observeHttp } from '@pix/observability';
import { closeHttpServer, connectDatabase, connectMessaging, Service } from '@pix/runtime';
import { callbackRouter } from './callbacks';
import { config } from './config';
import { selectProvider } from './providers/select';
import { SandboxCommands } from './sandbox-commands';
import { listen } from './tls';

async function main(): Promise<void> {
  const service = await Service.start('pix-provider-adapter', config);
  const { logger } = service;

  await connectDatabase(service, config.MONGO_URL);

  const nc = await connectMessaging(service, config.NATS_URL);
  await ensureStreams(nc, config.JETSTREAM_REPLICAS, logger);
  const js = jetstream(nc);

  const pspRequests = new Counter({
    name: 'psp_requests_total',
    help: 'Calls to the PSP, by operation and outcome (after retries)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [service.registry],
  });
  const scheme = config.PIX_PROVIDER === 'apipix' ? 'https' : 'http';
  const callbackUrl = `${scheme}://${config.HTTP_HOST}:${config.HTTP_PORT}/psp/callbacks`;
  const selected = await selectProvider(config, callbackUrl, logger, (operation, outcome) =>
    pspRequests.inc({ operation, outcome }),
  );
  const { provider, sandbox } = selected;
  if (sandbox) service.onShutdown('sandbox psp', () => closeHttpServer(sandbox.server));

  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(logger));
  app.use('/psp/callbacks', callbackRouter({ js, auth: selected.callbackAuth, logger }));
  const server = await listen(app, config.HTTP_PORT, config.HTTP_HOST, selected.callbackTls);
  service.onShutdown('http server', () => closeHttpServer(server));
  if (sandbox) {
    // Callbacks a stopped adapter left unsent go out now that the callback endpoint listens.
    service.onShutdown('sandbox psp callbacks', () => sandbox.payer.stop());
    sandbox.payer.resume().catch((err: unknown) => logger.warn({ err }, 'resuming sandbox PSP callbacks failed'));
  }

  const queue = QueueGroups.pixProviderAdapter;
  const subscriptions = [
    serveRpc(
      nc,
      { subject: Subjects.pixChargesCreate, queue, schema: CreateChargeRequestSchema, logger },
      async (req, msg) => {
        const charge = await provider.createCharge(req, callerGone(msg));
        return { txid: charge.txid, location: charge.location, qrCopyPaste: charge.pixCopiaECola };
      },
    ),
    serveRpc(nc, { subject: Subjects.pixRefundsCreate, queue, schema: CreateRefundRequestSchema, logger }, (req) =>
      provider.refund(req),
    ),
  ];
  if (sandbox) {
    const commands = new SandboxCommands(sandbox.payer);
    const analysis = { queue, schema: SandboxAnalysisRequestSchema, logger };
    subscriptions.push(
      serveRpc(nc, { subject: Subjects.sandboxPay, queue, schema: SandboxPayRequestSchema, logger }, (req) =>
        commands.pay(req.paymentId, req.amountCents),
      ),
      serveRpc(nc, { ...analysis, subject: Subjects.sandboxReview }, (req) => commands.review(req.paymentId)),
      serveRpc(nc, { ...analysis, subject: Subjects.sandboxClear }, (req) => commands.clear(req.paymentId)),
      serveRpc(nc, { ...analysis, subject: Subjects.sandboxReject }, (req) => commands.reject(req.paymentId)),
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
  process.stderr.write(`pix-provider-adapter failed to start: ${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
