import { readPem, type ServerMutualTls } from '@pix/runtime';
import { ApiPixClient } from './api-pix/client';
import type { CallbackPin } from './callback-pins';
import type { Config } from './config';
import type { OnPspRequest } from './providers/provider';

/** The adapter's one PSP, over API Pix: the client that calls it and what its callbacks must show. */
export interface PspConnection {
  client: ApiPixClient;
  /** The callback endpoint's TLS: its certificate, and the CA whose client certificates it takes. */
  callbackTls: ServerMutualTls;
  /** Which certificates of that CA are the PSP's own. */
  callbackPins: readonly CallbackPin[];
}

/**
 * The PSP connection the settings describe. Sandbox and live alike speak API Pix through the same
 * client (OAuth2 client credentials, mutual TLS) and take callbacks on the same endpoint: the
 * sandbox's PSP is the simulator (services/psp-simulator), a process of its own, so every sandbox
 * payment runs the path a live one does.
 */
export function pspConnection(config: Config, onRequest: OnPspRequest): PspConnection {
  const baseUrl = config.PIX_API_URL;
  return {
    client: new ApiPixClient({
      clientId: config.PIX_CLIENT_ID,
      clientSecret: config.PIX_CLIENT_SECRET,
      pixKey: config.PIX_RECEIVER_KEY,
      timeoutMs: config.PIX_TIMEOUT,
      retryLimit: config.PIX_RETRY_LIMIT,
      onRequest,
      baseUrl,
      tokenUrl: config.PIX_OAUTH_URL ?? new URL('/oauth/token', baseUrl).toString(),
      tls: {
        certificate: readPem(config.PIX_TLS_CERT_FILE),
        key: readPem(config.PIX_TLS_KEY_FILE),
        certificateAuthority: readPem(config.PIX_TLS_CA_FILE),
      },
    }),
    callbackTls: {
      cert: readPem(config.CALLBACK_TLS_CERT_FILE),
      key: readPem(config.CALLBACK_TLS_KEY_FILE),
      clientCa: readPem(config.CALLBACK_CLIENT_CA_FILE),
    },
    callbackPins: config.PSP_CALLBACK_PINS,
  };
}
