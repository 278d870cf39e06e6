import './tracing';
import express from 'express';
import { AdapterRpc, QueueGroups, SandboxRpc } from '@pix/contracts';
import { callerGone, jetstream, serveRpc } from '@pix/messaging';
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

  const nc = await connectMessaging(service, config);
  const js = jetstream(nc);

  const pspRequests = new Counter({
    name: 'psp_requests_total',
    help: 'Calls to the PSP, by operation and outcome (after retries)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [service.registry],
  });
  const scheme = config.PIX_PROVIDER === 'apipix' ? 'https' : 'http';
  const callbackUrl = `${scheme}://${config.HTTP_HOST}:${config.HTTP_PORT}/psp/callbacks`;
  const selected = await selectProvider(config, js, logger, (operation, outcome) =>
    pspRequests.inc({ operation, outcome }),
  );
  const { provider, sandbox } = selected;
  service.mark('provider');

  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(logger));
  app.use('/psp/callbacks', callbackRouter({ js, auth: selected.callbackAuth, logger }));
  const server = await listen(app, config.HTTP_PORT, config.HTTP_HOST, selected.callbackTls);
  service.onShutdown('http server', () => closeHttpServer(server));
  if (sandbox) {
    // Callbacks a stopped adapter left unsent go out now.
    service.onShutdown('sandbox psp callbacks', () => sandbox.payer.stop());
    sandbox.payer.resume().catch((err: unknown) => logger.warn({ err }, 'resuming sandbox PSP callbacks failed'));
  }

  const rpc = { queue: QueueGroups.pixProviderAdapter, logger };
  const subscriptions = [
    serveRpc(nc, AdapterRpc.createCharge, (req, msg) => provider.createCharge(req, callerGone(msg)), rpc),
    serveRpc(nc, AdapterRpc.createRefund, (req) => provider.refund(req), rpc),
  ];
  if (sandbox) {
    const commands = new SandboxCommands(sandbox.payer);
    subscriptions.push(
      serveRpc(nc, SandboxRpc.pay, (req) => commands.pay(req.paymentId, req.amountCents), rpc),
      serveRpc(nc, SandboxRpc.review, (req) => commands.review(req.paymentId), rpc),
      serveRpc(nc, SandboxRpc.clear, (req) => commands.clear(req.paymentId), rpc),
      serveRpc(nc, SandboxRpc.reject, (req) => commands.reject(req.paymentId), rpc),
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
