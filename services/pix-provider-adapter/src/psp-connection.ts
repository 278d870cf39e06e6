import { modeName, type ModeName } from '@pix/contracts';
import { readPem, type ServerMutualTls } from '@pix/runtime';
import { ApiPixClient } from './api-pix/client';
import type { CallbackPin } from './callback-pins';
import type { Config } from './config';
import type { OnPspRequest } from './providers/provider';

/**
 * One PSP the adapter speaks API Pix to, for one mode (docs/decisions/psp-connections.md): where
 * it is, the credentials and certificates it issued, the callback server it calls and what its
 * callbacks must show. Files are named, not read: a connection whose files cannot be read is
 * reported unready on its own, and the other mode goes on.
 */
export interface ConnectionSettings {
  name: ModeName;
  livemode: boolean;
  apiUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The receiver's Pix key written into every charge. */
  receiverKey: string;
  /** The client certificate and key the PSP issued, and the CA of its server (PEM files). */
  tls: { certFile: string; keyFile: string; caFile: string };
  /** Registered at the PSP at start (PUT /webhook/{chave}); unset: registered by hand. */
  callbackUrl: string | undefined;
  /** The callback server: its port, certificate and key, and the CA of the PSP's client certificates. */
  callbackPort: number;
  callbackTls: { certFile: string; keyFile: string; clientCaFile: string };
  /** Which certificates of that CA are the PSP's own. */
  callbackPins: readonly CallbackPin[];
  /** Whether its PSP reports infractions (MED claims) as Efí does: read, and answered. */
  infractions: boolean;
  /** Its calls: each attempt's timeout, the retries, and the connections open to its PSP at most. */
  calls: { timeoutMs: number; retryLimit: number; maxConnections: number };
}

/** The connections the settings describe: the test one always, the live one when LIVE_PSP_API_URL is set. */
export function connectionSettings(config: Config): ConnectionSettings[] {
  const test: ConnectionSettings = {
    name: modeName(false),
    livemode: false,
    apiUrl: config.PIX_API_URL,
    tokenUrl: config.PIX_OAUTH_URL ?? new URL('/oauth/token', config.PIX_API_URL).toString(),
    clientId: config.PIX_CLIENT_ID,
    clientSecret: config.PIX_CLIENT_SECRET,
    receiverKey: config.PIX_RECEIVER_KEY,
    tls: { certFile: config.PIX_TLS_CERT_FILE, keyFile: config.PIX_TLS_KEY_FILE, caFile: config.PIX_TLS_CA_FILE },
    callbackUrl: config.PIX_CALLBACK_URL,
    callbackPort: config.HTTP_PORT,
    callbackTls: {
      certFile: config.CALLBACK_TLS_CERT_FILE,
      keyFile: config.CALLBACK_TLS_KEY_FILE,
      clientCaFile: config.CALLBACK_CLIENT_CA_FILE,
    },
    callbackPins: config.PSP_CALLBACK_PINS,
    infractions: config.PIX_INFRACTIONS === 'efi',
    calls: {
      timeoutMs: config.PIX_TIMEOUT,
      retryLimit: config.PIX_RETRY_LIMIT,
      maxConnections: config.PIX_MAX_CONNECTIONS,
    },
  };
  const apiUrl = config.LIVE_PSP_API_URL;
  if (apiUrl === undefined) return [test];
  // The schema's refinement made every one of these present with LIVE_PSP_API_URL.
  const required = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('a live connection setting is missing');
    return value;
  };
  const live: ConnectionSettings = {
    name: modeName(true),
    livemode: true,
    apiUrl,
    tokenUrl: config.LIVE_PSP_OAUTH_URL ?? new URL('/oauth/token', apiUrl).toString(),
    clientId: required(config.LIVE_PSP_CLIENT_ID),
    clientSecret: required(config.LIVE_PSP_CLIENT_SECRET),
    receiverKey: required(config.LIVE_PSP_RECEIVER_KEY),
    tls: {
      certFile: required(config.LIVE_PSP_TLS_CERT_FILE),
      keyFile: required(config.LIVE_PSP_TLS_KEY_FILE),
      caFile: required(config.LIVE_PSP_TLS_CA_FILE),
    },
    callbackUrl: config.LIVE_PSP_CALLBACK_URL,
    callbackPort: config.LIVE_PSP_CALLBACK_PORT,
    callbackTls: {
      certFile: required(config.LIVE_PSP_CALLBACK_TLS_CERT_FILE),
      keyFile: required(config.LIVE_PSP_CALLBACK_TLS_KEY_FILE),
      clientCaFile: required(config.LIVE_PSP_CALLBACK_CLIENT_CA_FILE),
    },
    callbackPins: config.LIVE_PSP_CALLBACK_PINS,
    infractions: config.LIVE_PSP_INFRACTIONS === 'efi',
    calls: {
      timeoutMs: config.LIVE_PSP_TIMEOUT ?? test.calls.timeoutMs,
      retryLimit: config.LIVE_PSP_RETRY_LIMIT ?? test.calls.retryLimit,
      maxConnections: config.LIVE_PSP_MAX_CONNECTIONS ?? test.calls.maxConnections,
    },
  };
  return [test, live];
}

/** An open connection: the client that calls the PSP, and its callback server's TLS. */
export interface PspConnection {
  settings: ConnectionSettings;
  client: ApiPixClient;
  /** The callback endpoint's TLS: its certificate, and the CA whose client certificates it takes. */
  callbackTls: ServerMutualTls;
}

/**
 * Opens a connection: reads its certificates and makes its client (OAuth2 client credentials over
 * mutual TLS). Throws when a file cannot be read, with the file's setting in the message and
 * nothing of its content.
 */
export function openConnection(settings: ConnectionSettings, options: { onRequest: OnPspRequest }): PspConnection {
  const pem = (file: string) => {
    try {
      return readPem(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new Error(`the ${settings.name} connection's file ${file} cannot be read (${code})`);
    }
  };
  return {
    settings,
    client: new ApiPixClient({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      pixKey: settings.receiverKey,
      ...settings.calls,
      onRequest: options.onRequest,
      baseUrl: settings.apiUrl,
      tokenUrl: settings.tokenUrl,
      tls: {
        certificate: pem(settings.tls.certFile),
        key: pem(settings.tls.keyFile),
        certificateAuthority: pem(settings.tls.caFile),
      },
    }),
    callbackTls: {
      cert: pem(settings.callbackTls.certFile),
      key: pem(settings.callbackTls.keyFile),
      clientCa: pem(settings.callbackTls.clientCaFile),
    },
  };
}

/**
 * The open connections by mode: where a charge, a command or a charge read of a payment goes. A
 * mode without an open connection (none configured, or its files unreadable) throws: its charge
 * and commands wait and are tried again, as when a PSP is away.
 */
export class PspConnections {
  private readonly byMode = new Map<boolean, ApiPixClient>();

  add(connection: PspConnection): void {
    this.byMode.set(connection.settings.livemode, connection.client);
  }

  provider(livemode: boolean): ApiPixClient {
    const client = this.byMode.get(livemode);
    // Temporary (a setting or a certificate to mend): answered 503 and tried again, never dropped.
    if (!client) throw Object.assign(new Error(`no ${modeName(livemode)} PSP connection is open`), { transient: true });
    return client;
  }
}
