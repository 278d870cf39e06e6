import type http from 'node:http';
import mongoose from 'mongoose';
import { connectNats, isNatsConnected } from '@pix/messaging';
import { Service } from '@pix/runtime';
import { serveStoreRpcs } from './admin-rpc';
import { createApp } from './app';
import { config } from './config';

async function main(): Promise<void> {
  const service = new Service({
    name: 'gateway',
    opsPort: config.OPS_PORT,
    opsHost: config.OPS_HOST,
    logLevel: config.LOG_LEVEL,
    shutdownGraceMs: config.SHUTDOWN_GRACE,
  });
  const { logger } = service;
  await service.startOps();

  await mongoose.connect(config.MONGO_URL, { serverSelectionTimeoutMS: 10_000 });
  service.onShutdown('mongodb', () => mongoose.disconnect());
  service.addReadinessCheck('mongodb', () => mongoose.connection.readyState === 1);
  await Promise.all([mongoose.model('Store').syncIndexes(), mongoose.model('Token').syncIndexes()]);

  const nc = await connectNats(config.NATS_URL, 'gateway', logger);
  service.onShutdown('nats', () => nc.drain());
  service.addReadinessCheck('nats', () => isNatsConnected(nc));

  const subscriptions = serveStoreRpcs(nc, logger);
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  const app = createApp({ nc, logger, rpcTimeoutMs: config.RPC_TIMEOUT });
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(config.GATEWAY_PORT, config.HTTP_HOST, () => resolve(s));
  });
  service.onShutdown('http server', () => new Promise<void>((resolve) => server.close(() => resolve())));

  // NATS has our subscriptions before /readyz says ready (started), so a request finds a responder.
  await nc.flush();
  service.started({ url: `http://${config.HTTP_HOST}:${config.GATEWAY_PORT}` });
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${String(err instanceof Error ? err.stack : err)}\n`);
  process.exit(1);
});
