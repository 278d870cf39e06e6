import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pspPki, type PspPki } from './certificates';
import { PSP_SIMULATOR, simulatorEntry } from './layout';
import { writePrivateFile, type LocalSecrets } from './local-secrets';
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

/**
 * The stack's simulators: the test connection's PSP, and a second instance that stands in for the
 * live PSP (`make up` rehearses live against it). Each has its own certificates (PKI), client
 * secret, database and ports, as two PSPs would: nothing of one is trusted by the other.
 */
export type PspInstance = 'test' | 'live';

const INSTANCES: Record<PspInstance, { process: string; pki: string; database: string }> = {
  test: { process: PSP_SIMULATOR, pki: 'psp-pki', database: '_psp' },
  live: { process: `${PSP_SIMULATOR}-live`, pki: 'live-psp-pki', database: '_psp_live' },
};

/**
 * The OAuth2 client secret the platform has at an instance: the test one's is in the stack's
 * secrets file (its first); the live stand-in's is kept beside its certificates, made on first use.
 */
export function pspClientSecret(instance: PspInstance, pki: PspPki, secrets: LocalSecrets): string {
  if (instance === 'test') return secrets.pspClientSecret;
  const file = path.join(pki.dir, 'client-secret');
  if (!fs.existsSync(file)) writePrivateFile(file, randomBytes(24).toString('base64url'));
  return fs.readFileSync(file, 'utf8');
}

/** Where one of the stack's PSP simulators is, and what a receiver needs to speak to it. */
export interface PspConnection {
  instance: PspInstance;
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
   * Where the stack's adapter takes this PSP's callbacks (its connection's callback server): its
   * first replica's port, registered by every replica (as a Service's one address in Kubernetes),
   * so a replica on a port of its own does not take the registration from it.
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
 * Starts a PSP simulator with the instance's certificates (made on first start) and its own
 * database (the platform's database name + `_psp`, or `_psp_live`) under the simulator's login,
 * and waits for its /readyz.
 */
export async function startPspSimulator(options: {
  /** Which of the stack's two (test by default). */
  instance?: PspInstance;
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
  const instance = options.instance ?? 'test';
  const { process: name, pki: pkiDir, database } = INSTANCES[instance];
  const pki = pspPki(path.join(options.dir, 'secrets', pkiDir));
  const mongoUrl = withDatabase(options.mongoUrl, `${databaseOf(options.mongoUrl)}${database}`);
  for (const [port, what] of [
    [options.ports.api, 'api'],
    [options.ports.backOffice, 'back office'],
    [options.ports.ops, 'ops'],
  ] as const) {
    await assertPortFree(port, `${name} (${what})`);
  }
  const { pspSimulator: login } = options.secrets;
  const logFile = path.join(options.dir, 'logs', `${name}.log`);
  const started = launch(name, process.execPath, [...options.nodeFlags, simulatorEntry()], {
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
      OAUTH_CLIENT_SECRET: pspClientSecret(instance, pki, options.secrets),
      ...options.env,
    },
    logFile,
    detached: options.detached,
  });
  let exited = false;
  started.child?.once('exit', () => (exited = true));
  const opsUrl = `http://127.0.0.1:${options.ports.ops}`;
  try {
    await waitForHttp(`${opsUrl}/readyz`, 60_000, name, () => !exited && isAlive(started.pid), logFile);
  } catch (err) {
    await stopPid(started.pid);
    throw err;
  }
  const base = `https://127.0.0.1:${options.ports.api}`;
  return {
    started,
    connection: {
      instance,
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
 * The adapter's settings for its test connection pointed at the stack's (test) simulator: its
 * client certificate and credentials at the PSP, the PSP's CA, its callback server's certificate,
 * the pin of the simulator's callback certificate, and the back office that plays the payer for
 * the sandbox routes.
 */
export function adapterApiPixEnv(psp: PspConnection, secrets: LocalSecrets): NodeJS.ProcessEnv {
  return {
    PIX_API_URL: psp.apiUrl,
    PIX_CALLBACK_URL: psp.callbackUrl,
    PIX_OAUTH_URL: psp.oauthUrl,
    PIX_CLIENT_ID: psp.clientId,
    PIX_CLIENT_SECRET: pspClientSecret('test', psp.pki, secrets),
    PIX_RECEIVER_KEY: psp.receiverKey,
    PIX_TLS_CERT_FILE: psp.pki.adapterClient.cert,
    PIX_TLS_KEY_FILE: psp.pki.adapterClient.key,
    PIX_TLS_CA_FILE: psp.pki.pspCa,
    CALLBACK_TLS_CERT_FILE: psp.pki.adapterCallbackServer.cert,
    CALLBACK_TLS_KEY_FILE: psp.pki.adapterCallbackServer.key,
    CALLBACK_CLIENT_CA_FILE: psp.pki.pspCa,
    PSP_CALLBACK_PINS: psp.pki.pspCallbackPin,
    PSP_BACKOFFICE_URL: psp.backOfficeUrl,
  };
}

/**
 * The adapter's live connection pointed at the stack's stand-in live PSP (LIVE_PSP_*): the same
 * parts from that instance's own PKI and secret. No back office: a live payment is paid at the
 * PSP's payer route, never through the platform.
 */
export function adapterLiveEnv(psp: PspConnection, secrets: LocalSecrets, callbackPort: number): NodeJS.ProcessEnv {
  return {
    LIVE_PSP_API_URL: psp.apiUrl,
    LIVE_PSP_OAUTH_URL: psp.oauthUrl,
    LIVE_PSP_CALLBACK_URL: psp.callbackUrl,
    LIVE_PSP_CLIENT_ID: psp.clientId,
    LIVE_PSP_CLIENT_SECRET: pspClientSecret('live', psp.pki, secrets),
    LIVE_PSP_RECEIVER_KEY: psp.receiverKey,
    LIVE_PSP_TLS_CERT_FILE: psp.pki.adapterClient.cert,
    LIVE_PSP_TLS_KEY_FILE: psp.pki.adapterClient.key,
    LIVE_PSP_TLS_CA_FILE: psp.pki.pspCa,
    LIVE_PSP_CALLBACK_PORT: String(callbackPort),
    LIVE_PSP_CALLBACK_TLS_CERT_FILE: psp.pki.adapterCallbackServer.cert,
    LIVE_PSP_CALLBACK_TLS_KEY_FILE: psp.pki.adapterCallbackServer.key,
    LIVE_PSP_CALLBACK_CLIENT_CA_FILE: psp.pki.pspCa,
    LIVE_PSP_CALLBACK_PINS: psp.pki.pspCallbackPin,
  };
}
