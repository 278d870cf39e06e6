import express from 'express';
import type { JetStreamClient } from '@pix/messaging';
import { observeHttp } from '@pix/observability';
import { closeHttpServer, listen, type Service } from '@pix/runtime';
import type { AdapterMetrics } from './adapter-metrics';
import { callbackRouter } from './callbacks';
import { CallbackRegistration } from './callback-registration';
import { config } from './config';
import { ConnectionHealth } from './connection-health';
import { openConnection, type ConnectionSettings, type PspConnections } from './psp-connection';
import { Reconciliation } from './reconciliation';
import { InfractionReading } from './infractions';
import { ReconciliationCursor } from './reconciliation-cursor';
import type { ToldFacts } from './told-facts';

export interface ConnectionDeps {
  js: JetStreamClient;
  told: ToldFacts;
  metrics: AdapterMetrics;
  /** Where the open connection is added, for charges and commands of its mode. */
  connections: PspConnections;
}

/**
 * Everything one PSP connection runs in the adapter: its client, its callback server (mutual TLS,
 * its own port and pins), the registration of its callback URL at its PSP, its reconciliation
 * (its own cursor), the reading of its infractions when its PSP reports them (a cursor of its own)
 * and its health. A connection that cannot be opened (a certificate file missing
 * or unreadable) is reported unready and left out; the adapter serves the other mode.
 */
export async function serveConnection(
  service: Service,
  settings: ConnectionSettings,
  { js, told, metrics, connections }: ConnectionDeps,
): Promise<void> {
  const { logger } = service;
  const connection = settings.name;
  let psp;
  try {
    psp = openConnection(settings, {
      onRequest: (operation, outcome) => metrics.requests.inc({ connection, operation, outcome }),
    });
  } catch (err) {
    ConnectionHealth.unopened(connection, err instanceof Error ? err.message : String(err), metrics.ready, logger);
    return;
  }
  const provider = psp.client;
  metrics.connectionUse.set(connection, () => provider.connectionUse());

  const app = express();
  app.disable('x-powered-by');
  app.use(observeHttp(logger));
  app.use(
    '/psp/callbacks',
    callbackRouter({
      connection: settings,
      js,
      told,
      provider,
      pins: settings.callbackPins,
      refused: metrics.callbacksRefused,
      logger,
    }),
  );
  const server = await listen(app, settings.callbackPort, config.HTTP_HOST, psp.callbackTls);
  service.onShutdown(`${connection} callback server`, () => closeHttpServer(server));

  if (settings.callbackUrl) {
    const registration = new CallbackRegistration(
      (webhookUrl) => provider.registerWebhook(webhookUrl),
      settings.callbackUrl,
      (done) => metrics.callbackRegistered.set({ connection }, done ? 1 : 0),
      logger.child({ connection }),
    );
    registration.start();
    service.onShutdown(`${connection} callback registration`, () => registration.stop());
  }

  const reconciliation = new Reconciliation(
    { name: connection, livemode: settings.livemode, provider },
    js,
    told,
    await ReconciliationCursor.open(connection, logger),
    { intervalMs: config.RECONCILE_INTERVAL, overlapMs: config.RECONCILE_OVERLAP },
    { found: metrics.found, listed: metrics.listed, runs: metrics.runs, completedAt: metrics.completedAt },
    logger,
  );
  reconciliation.start();
  service.onShutdown(`${connection} reconciliation`, () => reconciliation.stop());

  if (settings.infractions) {
    const infractions = new InfractionReading(
      { name: connection, livemode: settings.livemode, provider },
      js,
      told,
      await ReconciliationCursor.open(connection, logger, 'infractions'),
      { intervalMs: config.INFRACTIONS_INTERVAL, overlapMs: config.RECONCILE_OVERLAP },
      { told: metrics.infractionsTold, runs: metrics.infractionRuns, unknownPix: metrics.infractionsUnknownPix },
      logger,
    );
    infractions.start();
    service.onShutdown(`${connection} infractions`, () => infractions.stop());
  }

  const health = new ConnectionHealth(connection, () => provider.checkAccess(), metrics.ready, logger);
  health.start();
  service.onShutdown(`${connection} connection health`, () => health.stop());

  connections.add(psp);
  logger.info({ connection, apiUrl: settings.apiUrl, callbackPort: settings.callbackPort }, 'PSP connection open');
}
