import './tracing';
import type http from 'node:http';
import express from 'express';
import mongoose from 'mongoose';
import { CreateChargeRequestSchema, QueueGroups, SandboxPayRequestSchema, Subjects } from '@pix/contracts';
import { connectNats, ensureStreams, isNatsConnected, jetstream, serveRpc } from '@pix/messaging';
import { observeHttp } from '@pix/observability';
import { databaseReachable, Service } from '@pix/runtime';
import { callbackRouter } from './callbacks';
import { config } from './config';
import { SandboxProvider } from './providers/sandbox';
import { sandboxPay } from './sandbox-commands';

async function main(): Promise<void> {
  const service = new Service({
    name: 'pix-provider-adapter',
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

  const nc = await connectNats(config.NATS_URL, 'pix-provider-adapter', logger);
  service.onShutdown('nats', () => nc.drain());
  service.addReadinessCheck('nats', () => isNatsConnected(nc));
  await ensureStreams(nc, config.JETSTREAM_REPLICAS);
  const js = jetstream(nc);

  const sandbox = new SandboxProvider({
    merchantName: config.PIX_MERCHANT_NAME,
    merchantCity: config.PIX_MERCHANT_CITY,
    locationHost: config.SANDBOX_LOCATION_HOST,
  });
  const provider = sandbox;

  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(logger));
  app.use('/psp/callbacks', callbackRouter({ js, secret: config.PSP_CALLBACK_SECRET, logger }));
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(config.HTTP_PORT, config.HTTP_HOST, () => resolve(s));
  });
  service.onShutdown('http server', () => new Promise<void>((resolve) => server.close(() => resolve())));
  const callbackUrl = `http://${config.HTTP_HOST}:${config.HTTP_PORT}/psp/callbacks/pix`;

  const queue = QueueGroups.pixProviderAdapter;
  const subscriptions = [
    serveRpc(
      nc,
      { subject: Subjects.pixChargesCreate, queue, schema: CreateChargeRequestSchema, logger },
      async (req) => {
        const charge = await provider.createCharge(req);
        return { txid: charge.txid, location: charge.location, qrCopyPaste: charge.pixCopiaECola };
      },
    ),
    serveRpc(nc, { subject: Subjects.sandboxPay, queue, schema: SandboxPayRequestSchema, logger }, (req) =>
      sandboxPay(sandbox, { callbackUrl, secret: config.PSP_CALLBACK_SECRET }, req.paymentId, req.amountCents),
    ),
  ];
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
