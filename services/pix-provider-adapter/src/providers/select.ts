import type http from 'node:http';
import type { Logger } from '@pix/observability';
import { ApiPixClient, type MutualTls, type PspOperation } from '../api-pix/client';
import { CALLBACK_SECRET_HEADER, type CallbackAuth } from '../callbacks';
import type { Config } from '../config';
import { sandboxPspApp } from '../sandbox-psp/app';
import { SandboxPayer } from '../sandbox-psp/simulator';
import { syncSandboxIndexes } from '../sandbox-psp/store';
import { listen, readPem, type ServerMutualTls } from '../tls';
import type { PixProvider } from './provider';

export interface SelectedProvider {
  provider: PixProvider;
  /** How the callback endpoint authenticates the PSP, and the TLS it is served with (null: HTTP). */
  callbackAuth: CallbackAuth;
  callbackTls: ServerMutualTls | null;
  /** The sandbox PSP's payer side (sandbox mode only), and its HTTP server to close on shutdown. */
  sandbox: { payer: SandboxPayer; server: http.Server } | null;
}

function file(value: string | undefined): string {
  if (!value) throw new Error('missing file setting (validated by config)');
  return readPem(value);
}

/**
 * The provider port chosen by PIX_PROVIDER. Both modes speak API Pix through the same client:
 * `apipix` to a real PSP over mutual TLS; `sandbox` to the embedded PSP simulator, started here on
 * loopback, which calls the adapter back with the shared secret.
 */
export async function selectProvider(
  config: Config,
  callbackUrl: string,
  logger: Logger,
  onRequest: (operation: PspOperation, outcome: 'success' | 'failure') => void,
): Promise<SelectedProvider> {
  const common = {
    clientId: config.PIX_CLIENT_ID,
    clientSecret: config.PIX_CLIENT_SECRET,
    pixKey: config.PIX_RECEIVER_KEY,
    timeoutMs: config.PIX_TIMEOUT,
    retryLimit: config.PIX_RETRY_LIMIT,
    onRequest,
  };
  if (config.PIX_PROVIDER === 'apipix') {
    const baseUrl = config.PIX_API_URL ?? '';
    const tls: MutualTls = {
      certificate: file(config.PIX_TLS_CERT_FILE),
      key: file(config.PIX_TLS_KEY_FILE),
      certificateAuthority: file(config.PIX_TLS_CA_FILE),
    };
    return {
      provider: new ApiPixClient({
        ...common,
        baseUrl,
        tokenUrl: config.PIX_OAUTH_URL ?? new URL('/oauth/token', baseUrl).toString(),
        tls,
      }),
      callbackAuth: { kind: 'mtls' },
      callbackTls: {
        cert: file(config.CALLBACK_TLS_CERT_FILE),
        key: file(config.CALLBACK_TLS_KEY_FILE),
        clientCa: file(config.CALLBACK_CLIENT_CA_FILE),
      },
      sandbox: null,
    };
  }
  await syncSandboxIndexes(logger);
  const app = sandboxPspApp({
    clientId: config.PIX_CLIENT_ID,
    clientSecret: config.PIX_CLIENT_SECRET,
    merchantName: config.PIX_MERCHANT_NAME,
    merchantCity: config.PIX_MERCHANT_CITY,
    locationHost: config.SANDBOX_LOCATION_HOST,
  });
  const server = await listen(app, config.SANDBOX_PSP_PORT, config.SANDBOX_PSP_HOST, null);
  const pspUrl = `http://${config.SANDBOX_PSP_HOST}:${config.SANDBOX_PSP_PORT}`;
  logger.info({ pspUrl }, 'sandbox PSP serving API Pix');
  const payer = new SandboxPayer(
    { url: callbackUrl, headers: { [CALLBACK_SECRET_HEADER]: config.PSP_CALLBACK_SECRET }, tls: null },
    logger,
    config.SANDBOX_FAIL_POINT ?? null,
  );
  return {
    provider: new ApiPixClient({ ...common, baseUrl: `${pspUrl}/v2`, tokenUrl: `${pspUrl}/oauth/token`, tls: null }),
    callbackAuth: { kind: 'secret', secret: config.PSP_CALLBACK_SECRET },
    callbackTls: null,
    sandbox: { payer, server },
  };
}
