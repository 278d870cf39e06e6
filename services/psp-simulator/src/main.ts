import './tracing';
import { Counter, writeStartFailure } from '@pix/observability';
import { closeHttpServer, connectDatabase, listen, readPem, Service } from '@pix/runtime';
import { OwedCallbacks, SandboxBooks, SandboxInfractions, SandboxPayer, SandboxPsp, SandboxSettlements } from './books';
import { apiPixApp } from './api';
import { backOfficeApp } from './back-office';
import { callbackSender } from './callback-sender';
import { config } from './config';
import { Faults } from './faults';
import { Journal } from './journal';
import { AccessTokens } from './tokens';
import { WebhookRegistrations } from './webhook-registrations';

/**
 * The PSP simulator: a PSP in a process of its own, with its own database and login. It serves API
 * Pix v2 over mutual TLS to its receiver (the platform's adapter) and calls the receiver's
 * registered webhook back over mutual TLS with its own client certificate; its back office (the
 * payer's side, faults, the journal) listens on another port, plain HTTP, internal only.
 */
async function main(): Promise<void> {
  const service = await Service.start('psp-simulator', config);
  const { logger } = service;
  await connectDatabase(service, config);
  const [books, registrations] = await Promise.all([SandboxBooks.open(logger), WebhookRegistrations.open(logger)]);
  const infractions = await SandboxInfractions.open(books, logger);
  service.mark('books');

  const faults = new Faults();
  const journal = new Journal();
  const callbacks = new OwedCallbacks(logger);
  service.onShutdown('owed callbacks', () => callbacks.stop());
  const notify = callbackSender({
    books,
    registrations,
    faults,
    tls: {
      certificate: readPem(config.CALLBACK_TLS_CERT_FILE),
      key: readPem(config.CALLBACK_TLS_KEY_FILE),
      certificateAuthority: readPem(config.CALLBACK_CA_FILE),
    },
    timeoutMs: config.CALLBACK_TIMEOUT,
  });
  const settlements = new SandboxSettlements(books, notify, callbacks);
  const psp = new SandboxPsp(
    books,
    { merchantName: config.MERCHANT_NAME, merchantCity: config.MERCHANT_CITY, locationHost: config.LOCATION_HOST },
    settlements,
  );
  const payer = new SandboxPayer(books, notify, callbacks);

  const answered = new Counter({
    name: 'psp_api_requests_total',
    help: 'API Pix requests the simulator served, by operation and HTTP status (aborted: the client left before the answer)',
    labelNames: ['operation', 'status'] as const,
    registers: [service.registry],
  });
  const api = apiPixApp({
    psp,
    infractions,
    registrations,
    tokens: new AccessTokens(config.TOKEN_TTL),
    faults,
    journal,
    client: { id: config.OAUTH_CLIENT_ID, secret: config.OAUTH_CLIENT_SECRET },
    onAnswer: (operation, status) => answered.inc({ operation, status: String(status) }),
  });
  const apiServer = await listen(api, config.API_PORT, config.API_HOST, {
    cert: readPem(config.TLS_CERT_FILE),
    key: readPem(config.TLS_KEY_FILE),
    clientCa: readPem(config.TLS_CLIENT_CA_FILE),
  });
  service.onShutdown('api pix server', () => closeHttpServer(apiServer));
  const backOffice = await listen(
    backOfficeApp({ payer, books, psp, infractions, faults, journal }),
    config.BACKOFFICE_PORT,
    config.BACKOFFICE_HOST,
    null,
  );
  service.onShutdown('back office server', () => closeHttpServer(backOffice));

  // Callbacks and settlements a stopped simulator left unacknowledged go out now.
  Promise.all([payer.resume(), settlements.resume()]).catch((err: unknown) =>
    logger.warn({ err }, 'resuming owed callbacks failed'),
  );
  service.started({ api: `https://${config.API_HOST}:${config.API_PORT}/v2` });
}

main().catch((err: unknown) => {
  writeStartFailure('psp-simulator', err);
  process.exit(1);
});
