import type { JetStreamClient } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import type * as ApiPix from '../api-pix/client';
import type { MutualTls } from '../api-pix/client';
import { receivePix, type CallbackAuth } from '../callbacks';
import type { Config } from '../config';
import {
  OwedCallbacks,
  SandboxBooks,
  SandboxPayer,
  SandboxPsp,
  SandboxSettlements,
  type NotifyReceiver,
} from '@pix/sandbox-psp';
import { SandboxProvider } from '../sandbox-psp/provider';
import { readPem, type ServerMutualTls } from '@pix/runtime';
import type { ToldFacts } from '../told-facts';
import type { OnPspRequest, PixProvider } from './provider';

export interface SelectedProvider {
  provider: PixProvider;
  /** How the callback endpoint authenticates the PSP, and the TLS it is served with (null: HTTP). */
  callbackAuth: CallbackAuth;
  callbackTls: ServerMutualTls | null;
  /** Registers the callback URL at the PSP (apipix mode only: the sandbox calls back in process). */
  registerCallbacks: ((webhookUrl: string) => Promise<void>) | null;
  /** The sandbox PSP's payer side, its refunds' settlement and its owed callbacks (sandbox mode only). */
  sandbox: {
    payer: SandboxPayer;
    settlements: SandboxSettlements;
    callbacks: OwedCallbacks;
    books: SandboxBooks;
  } | null;
}

function file(value: string | undefined): string {
  if (!value) throw new Error('missing file setting (validated by config)');
  return readPem(value);
}

/**
 * The provider port chosen by PIX_PROVIDER: `apipix`, a real PSP's API Pix over mutual TLS, whose
 * callbacks arrive at the adapter's endpoint; `sandbox`, the embedded PSP simulator, called in
 * process, which tells the adapter of each Pix as its callback would (the facts go on the PIX
 * stream the same way; its books are this process's own, so there is nothing to read back). The
 * callback endpoint then takes the shared secret, for a PSP simulated by hand, and reads what it
 * is told back from the sandbox's books like a real PSP's.
 */
export async function selectProvider(
  config: Config,
  js: JetStreamClient,
  told: ToldFacts,
  logger: Logger,
  onRequest: OnPspRequest,
): Promise<SelectedProvider> {
  if (config.PIX_PROVIDER === 'apipix') {
    // Loaded only in this mode (it brings the HTTP client): less for a sandbox replica to load at start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ApiPixClient } = require('../api-pix/client') as typeof ApiPix;
    const baseUrl = config.PIX_API_URL ?? '';
    const tls: MutualTls = {
      certificate: file(config.PIX_TLS_CERT_FILE),
      key: file(config.PIX_TLS_KEY_FILE),
      certificateAuthority: file(config.PIX_TLS_CA_FILE),
    };
    const client = new ApiPixClient({
      clientId: config.PIX_CLIENT_ID,
      clientSecret: config.PIX_CLIENT_SECRET,
      pixKey: config.PIX_RECEIVER_KEY,
      timeoutMs: config.PIX_TIMEOUT,
      retryLimit: config.PIX_RETRY_LIMIT,
      onRequest,
      baseUrl,
      tokenUrl: config.PIX_OAUTH_URL ?? new URL('/oauth/token', baseUrl).toString(),
      tls,
    });
    return {
      provider: client,
      registerCallbacks: (webhookUrl) => client.registerWebhook(webhookUrl),
      callbackAuth: { kind: 'mtls', pins: config.PSP_CALLBACK_PINS },
      callbackTls: {
        cert: file(config.CALLBACK_TLS_CERT_FILE),
        key: file(config.CALLBACK_TLS_KEY_FILE),
        clientCa: file(config.CALLBACK_CLIENT_CA_FILE),
      },
      sandbox: null,
    };
  }
  const books = await SandboxBooks.open(logger);
  const callbacks = new OwedCallbacks(logger);
  const notify: NotifyReceiver = async (pix) => {
    await receivePix(js, told, [pix], logger);
  };
  const settlements = new SandboxSettlements(books, notify, callbacks);
  const psp = new SandboxPsp(
    books,
    {
      merchantName: config.PIX_MERCHANT_NAME,
      merchantCity: config.PIX_MERCHANT_CITY,
      locationHost: config.SANDBOX_LOCATION_HOST,
    },
    settlements,
  );
  const payer = new SandboxPayer(books, notify, callbacks);
  return {
    provider: new SandboxProvider(psp, config.PIX_RECEIVER_KEY, onRequest),
    registerCallbacks: null,
    callbackAuth: { kind: 'secret', secret: config.PSP_CALLBACK_SECRET },
    callbackTls: null,
    sandbox: { payer, settlements, callbacks, books },
  };
}
