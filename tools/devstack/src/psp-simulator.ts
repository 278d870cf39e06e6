import path from 'node:path';
import { pspPki, type PspPki } from './certificates';
import { PSP_SIMULATOR, simulatorEntry } from './layout';
import type { LocalSecrets } from './local-secrets';
import { assertPortFree, isAlive, launch, stopPid, waitForHttp, type Started } from './processes';

/** The simulator's listening ports: API Pix (mutual TLS), its back office (plain HTTP), its ops port. */
export interface PspPorts {
  api: number;
  backOffice: number;
  ops: number;
}

/** The OAuth2 client id the simulator knows the platform by, and the Pix key the platform receives to. */
export const PSP_CLIENT_ID = 'pix-platform';
export const PSP_RECEIVER_KEY = 'recebimentos@pix.local';

/** Where the stack's PSP simulator is, and what a receiver needs to speak to it. */
export interface PspConnection {
  /** API Pix's base (…/v2) and its token endpoint, over mutual TLS. */
  apiUrl: string;
  oauthUrl: string;
  /** The payer and back office (POST /cob/{txid}/pay, faults, journal): plain HTTP, loopback only. */
  backOfficeUrl: string;
  opsUrl: string;
  clientId: string;
  receiverKey: string;
  pki: PspPki;
  /** The simulator's own database, as its URL without login (its login is in the secrets file). */
  mongoUrl: string;
  /**
   * Where the stack's adapter takes the PSP's callbacks: its first replica's port, registered by
   * every replica (as a Service's one address in Kubernetes), so a replica on a port of its own
   * does not take the registration from it.
   */
  callbackUrl: string;
}

/** `mongoUrl` with another database in its path (the simulator's own beside the platform's). */
export function withDatabase(mongoUrl: string, database: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/([^?]*))?(\?.*)?$/.exec(mongoUrl);
  if (!match) throw new Error('MONGO_URL is not a mongodb:// URL');
  return `${match[1]}/${database}${match[3] ?? ''}`;
}

/** The database name in a mongodb:// URL ('test' when it names none, as the driver reads it). */
export function databaseOf(mongoUrl: string): string {
  return /^mongodb(?:\+srv)?:\/\/[^/?]+\/([^?]+)/.exec(mongoUrl)?.[1] ?? 'test';
}

/**
 * Starts the PSP simulator with the stack's PSP certificates (made on first start) and its own
 * login and database (the platform's database name + `_psp`), and waits for its /readyz.
 */
export async function startPspSimulator(options: {
  dir: string;
  ports: PspPorts;
  mongoUrl: string;
  secrets: LocalSecrets;
  /** Log in with the stack's login for the simulator (false: the URL carries its own). */
  ownLogin: boolean;
  env?: NodeJS.ProcessEnv;
  detached: boolean;
  /** Flags for its node before the entry point: the services' heap limits, as the image's CMD gives them. */
  nodeFlags: readonly string[];
  /** The stack adapter's callback URL (PspConnection.callbackUrl). */
  callbackUrl: string;
}): Promise<{ started: Started; connection: PspConnection }> {
  const pki = pspPki(path.join(options.dir, 'secrets', 'psp-pki'));
  const mongoUrl = withDatabase(options.mongoUrl, `${databaseOf(options.mongoUrl)}_psp`);
  for (const [port, what] of [
    [options.ports.api, 'api'],
    [options.ports.backOffice, 'back office'],
    [options.ports.ops, 'ops'],
  ] as const) {
    await assertPortFree(port, `${PSP_SIMULATOR} (${what})`);
  }
  const { pspSimulator: login } = options.secrets;
  const logFile = path.join(options.dir, 'logs', `${PSP_SIMULATOR}.log`);
  const started = launch(PSP_SIMULATOR, process.execPath, [...options.nodeFlags, simulatorEntry()], {
    env: {
      ...process.env,
      MONGO_URL: mongoUrl,
      ...(options.ownLogin && { MONGO_USERNAME: login.user, MONGO_PASSWORD: login.password }),
      OPS_PORT: String(options.ports.ops),
      API_PORT: String(options.ports.api),
      BACKOFFICE_PORT: String(options.ports.backOffice),
      TLS_CERT_FILE: pki.pspServer.cert,
      TLS_KEY_FILE: pki.pspServer.key,
      TLS_CLIENT_CA_FILE: pki.pspCa,
      CALLBACK_TLS_CERT_FILE: pki.pspCallbackClient.cert,
      CALLBACK_TLS_KEY_FILE: pki.pspCallbackClient.key,
      CALLBACK_CA_FILE: pki.platformCa,
      OAUTH_CLIENT_ID: PSP_CLIENT_ID,
      OAUTH_CLIENT_SECRET: options.secrets.pspClientSecret,
      ...options.env,
    },
    logFile,
    detached: options.detached,
  });
  let exited = false;
  started.child?.once('exit', () => (exited = true));
  const opsUrl = `http://127.0.0.1:${options.ports.ops}`;
  try {
    await waitForHttp(`${opsUrl}/readyz`, 60_000, PSP_SIMULATOR, () => !exited && isAlive(started.pid), logFile);
  } catch (err) {
    await stopPid(started.pid);
    throw err;
  }
  const base = `https://127.0.0.1:${options.ports.api}`;
  return {
    started,
    connection: {
      apiUrl: `${base}/v2`,
      oauthUrl: `${base}/oauth/token`,
      backOfficeUrl: `http://127.0.0.1:${options.ports.backOffice}`,
      opsUrl,
      clientId: PSP_CLIENT_ID,
      receiverKey: PSP_RECEIVER_KEY,
      pki,
      mongoUrl,
      callbackUrl: options.callbackUrl,
    },
  };
}

/**
 * The adapter's settings for its PSP connection pointed at the stack's simulator: its client
 * certificate and credentials at the PSP, the PSP's CA, its callback server's certificate, and the
 * pin of the simulator's callback certificate.
 */
export function adapterApiPixEnv(psp: PspConnection, secrets: LocalSecrets): NodeJS.ProcessEnv {
  return {
    PIX_API_URL: psp.apiUrl,
    PIX_CALLBACK_URL: psp.callbackUrl,
    PIX_OAUTH_URL: psp.oauthUrl,
    PIX_CLIENT_ID: psp.clientId,
    PIX_CLIENT_SECRET: secrets.pspClientSecret,
    PIX_RECEIVER_KEY: psp.receiverKey,
    PIX_TLS_CERT_FILE: psp.pki.adapterClient.cert,
    PIX_TLS_KEY_FILE: psp.pki.adapterClient.key,
    PIX_TLS_CA_FILE: psp.pki.pspCa,
    CALLBACK_TLS_CERT_FILE: psp.pki.adapterCallbackServer.cert,
    CALLBACK_TLS_KEY_FILE: psp.pki.adapterCallbackServer.key,
    CALLBACK_CLIENT_CA_FILE: psp.pki.pspCa,
    PSP_CALLBACK_PINS: psp.pki.pspCallbackPin,
    // Used in the sandbox (PIX_PROVIDER=sandbox) only: the simulator's payer plays the sandbox routes.
    PSP_BACKOFFICE_URL: psp.backOfficeUrl,
  };
}
