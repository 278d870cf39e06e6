import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { createUser } from '@nats-io/nkeys';
import {
  freePort,
  isAlive,
  launch,
  readLocalSecrets,
  serviceEntry,
  PSP_SIMULATOR,
  SERVICE_NAMES,
  stopPid,
  type ServiceName,
} from '@pix/devstack';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { makeTestPki, type TestPki } from '../support/certificates';
import { factPairAs } from '../support/fact-keys';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * No failure prints a secret (issue 37). Every service runs with a marker in every secret setting
 * and meets the failures that print errors: the PSP unreachable, answering 401 and 500 with the
 * request (its Authorization header) echoed back, refusing the client certificate; a merchant
 * endpoint echoing the signed webhook; NATS refusing the login (an unknown seed, a seed file
 * holding a marker) and the database too (a wrong password, apart or in MONGO_URL). Once each
 * failure is in the log, no line of any service's log holds a marker, the client key's PEM body,
 * a Basic credential, the PSP's token, a store's token or webhook secret, a webhook signature, a
 * service's database password or any nkey seed.
 */
const marker = (name: string) => `MARKER-${name}-7f3a`;
const MARKERS = {
  PIX_CLIENT_ID: marker('client-id'),
  PIX_CLIENT_SECRET: marker('client-secret'),
  DASHBOARD_SESSION_SECRET: marker('dashboard-session-secret-long-enough'),
  // A sealing key as SECRETS_KEYS takes it (32 bytes in base64): its text is the marker.
  SECRETS_KEYS: 'k1:MARKERsecretskeys7f3aAAAAAAAAAAAAAAAAAAAAAA=',
  MONGO_PASSWORD: marker('mongo-password'),
  MONGO_URL_PASSWORD: marker('mongo-url-password'),
  PSP_ACCESS_TOKEN: marker('psp-access-token'),
  WEBHOOK_URL_TOKEN: marker('webhook-url-token'),
  NKEY_SEED: marker('nkey-seed'),
};
const SECRET_SETTINGS = {
  DASHBOARD_SESSION_SECRET: MARKERS.DASHBOARD_SESSION_SECRET,
  SECRETS_KEYS: MARKERS.SECRETS_KEYS,
};
/** The adapter's credentials at a failing PSP (the stack's own adapter speaks to its simulator with real ones). */
const PSP_CREDENTIALS = {
  PIX_CLIENT_ID: MARKERS.PIX_CLIENT_ID,
  PIX_CLIENT_SECRET: MARKERS.PIX_CLIENT_SECRET,
};
/**
 * The fact keys a service refused a login is started with: real Ed25519 keys (a marker is no key,
 * and a service refuses to start without one), looked for in the logs like the markers.
 */
const refusedFactKeys = factPairAs('FACT_SIGNING_KEY', 'PIX_FACTS_PUBLIC_KEYS');
const FACT_KEYS = { ...refusedFactKeys, PAYMENT_FACTS_PUBLIC_KEYS: refusedFactKeys.PIX_FACTS_PUBLIC_KEYS! };
/** Whatever the failure, a line is not worth more than this to wait for. */
const FAILURE_LOGGED_MS = 30_000;

let stack: PrivateStack;
let pki: TestPki;
let store: StoreCredentials;
const servers: (http.Server | https.Server)[] = [];
/** What the echoing merchant endpoint received: the signatures it echoed back. */
const echoedSignatures: string[] = [];

/** Every service's log lines so far (and the PSP simulator's), across every process of it. */
function logLines(): string[] {
  const dir = path.join(stack.dir, 'logs');
  return fs
    .readdirSync(dir)
    .filter((file) => [...SERVICE_NAMES, PSP_SIMULATOR].some((name) => file.startsWith(name)))
    .flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n'))
    .filter(Boolean);
}

/** Waits until some service has logged a line matching every pattern. */
function waitForLine(...patterns: RegExp[]): Promise<string[]> {
  return eventually(
    async () => logLines().filter((line) => patterns.every((pattern) => pattern.test(line))),
    (found) => found.length > 0,
    FAILURE_LOGGED_MS,
    250,
  );
}

/** An HTTPS server with the PSP's certificate that asks for the client's, trusting `clientCa`. */
async function serveTls(handler: http.RequestListener, clientCa: string): Promise<string> {
  const server = https.createServer(
    { cert: pki.server.cert, key: pki.server.key, ca: clientCa, requestCert: true, rejectUnauthorized: true },
    handler,
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Answers `status` with the request (method, URL, headers, body) echoed in an API Pix problem. */
function echo(status: number, req: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const request = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() };
    res.writeHead(status, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ title: 'Echo', status, detail: JSON.stringify(request), request }));
  });
}

/**
 * The stub PSP, as a failing peer only, over mutual TLS: under /s401 every request is refused with
 * 401 and echoed; under /s500 the token is given (a marker) and every API call answered 500 and echoed.
 */
function stubPsp(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.url?.startsWith('/s500/oauth/token')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: MARKERS.PSP_ACCESS_TOKEN, token_type: 'Bearer', expires_in: 3600 }));
    return;
  }
  echo(req.url?.startsWith('/s401/') ? 401 : 500, req, res);
}

/**
 * The adapter's settings for API Pix at `base` (the token under it too), with marker credentials:
 * its test connection and a live one beside it, each failing its own way at the same PSP.
 */
function apiPixEnv(base: string): NodeJS.ProcessEnv {
  return {
    ...PSP_CREDENTIALS,
    LIVE_PSP_API_URL: `${base}/v2`,
    LIVE_PSP_OAUTH_URL: `${base}/oauth/token`,
    LIVE_PSP_CLIENT_ID: MARKERS.PIX_CLIENT_ID,
    LIVE_PSP_CLIENT_SECRET: MARKERS.PIX_CLIENT_SECRET,
    LIVE_PSP_RECEIVER_KEY: 'pix@log-secrets.example',
    LIVE_PSP_TLS_CERT_FILE: pki.files.clientCert,
    LIVE_PSP_TLS_KEY_FILE: pki.files.clientKey,
    LIVE_PSP_TLS_CA_FILE: pki.files.ca,
    LIVE_PSP_CALLBACK_TLS_CERT_FILE: pki.files.serverCert,
    LIVE_PSP_CALLBACK_TLS_KEY_FILE: pki.files.serverKey,
    LIVE_PSP_CALLBACK_CLIENT_CA_FILE: pki.files.ca,
    LIVE_PSP_CALLBACK_PINS: pki.clientPin,
    PIX_RECEIVER_KEY: 'recebimentos@log-secrets.example',
    PIX_API_URL: `${base}/v2`,
    PIX_OAUTH_URL: `${base}/oauth/token`,
    PIX_TLS_CERT_FILE: pki.files.clientCert,
    PIX_TLS_KEY_FILE: pki.files.clientKey,
    PIX_TLS_CA_FILE: pki.files.ca,
    CALLBACK_TLS_CERT_FILE: pki.files.serverCert,
    CALLBACK_TLS_KEY_FILE: pki.files.serverKey,
    CALLBACK_CLIENT_CA_FILE: pki.files.ca,
    PSP_CALLBACK_PINS: pki.clientPin,
    PIX_RETRY_LIMIT: '0',
    PIX_TIMEOUT: '2s',
    RECONCILE_INTERVAL: '1s',
  };
}

/**
 * Starts a service that cannot log in (a wrong database password, an unknown nkey seed), with its
 * own log file, and waits until it has given up (it exits) or the time is over.
 */
async function startRefused(name: ServiceName, label: string, env: NodeJS.ProcessEnv): Promise<void> {
  const started = launch(name, process.execPath, [serviceEntry(name)], {
    env: {
      ...process.env,
      ...SECRET_SETTINGS,
      ...FACT_KEYS,
      // A complete PSP connection, so the adapter gets as far as its logins.
      ...apiPixEnv(`https://127.0.0.1:${await freePort()}/refused`),
      LOG_LEVEL: 'debug',
      NATS_URL: stack.natsUrl,
      NATS_NKEY_SEED_FILE: stack.natsCredentials?.[name],
      OPS_PORT: String(await freePort()),
      GATEWAY_PORT: String(await freePort()),
      HTTP_PORT: String(await freePort()),
      ...env,
    },
    logFile: path.join(stack.dir, 'logs', `${name}-${label}.log`),
    detached: false,
  });
  const deadline = Date.now() + FAILURE_LOGGED_MS;
  while (isAlive(started.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await stopPid(started.pid);
}

beforeAll(async () => {
  pki = makeTestPki();
  stack = await startPrivateStack({
    env: {
      ...SECRET_SETTINGS,
      LOG_LEVEL: 'debug',
      // An attempt at once and a retry a second later: both meet the echoing endpoint.
      WEBHOOK_RETRY_SCHEDULE: '0s,1s,1s',
    },
  });
  store = await createStore(stack, 'Log secrets store');
}, 150_000);

afterAll(async () => {
  await stack?.stop();
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  pki?.remove();
});

it('logs every failure without a secret in any line', async () => {
  // A merchant endpoint that echoes the signed webhook (its signature header included) with a 500.
  const merchant = http.createServer((req, res) => {
    echoedSignatures.push(String(req.headers['webhook-signature']));
    echo(500, req, res);
  });
  servers.push(merchant);
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  const webhookUrl = `http://127.0.0.1:${(merchant.address() as { port: number }).port}/hooks?token=${MARKERS.WEBHOOK_URL_TOKEN}`;
  const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
    token: store.token,
    body: { amount: 12.5, webhookUrl },
  });
  expect(created.status).toBe(200);
  await admin(stack, 'sandbox', 'pay', created.body.id);
  await waitForLine(/webhook delivery failed; will retry/);
  expect(echoedSignatures.length).toBeGreaterThan(0);

  // The adapter in apipix mode against four failing PSPs at once; the sandbox adapter stops first,
  // so that payments' charge requests meet them.
  await stack.stopProcess(stack.processesOf('pix-provider-adapter')[0]!);
  const stubUrl = await serveTls(stubPsp, pki.ca);
  // A PSP that refuses the client certificate: it trusts another CA only.
  const refusing = await serveTls(
    (_req, res) => res.end(),
    fs.readFileSync(path.join(pki.dir, 'other-ca.crt'), 'utf8'),
  );
  const unreachable = `https://127.0.0.1:${await freePort()}`;
  const psps = {
    unreachable: `${unreachable}/unreachable`,
    s401: `${stubUrl}/s401`,
    s500: `${stubUrl}/s500`,
    refusing: `${refusing}/refusing`,
  };
  await Promise.all(
    Object.values(psps).map(async (base) =>
      stack.startService('pix-provider-adapter', apiPixEnv(base), undefined, { adapterHttp: await freePort() }),
    ),
  );
  const charged = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
    token: store.token,
    body: { amount: 7 },
  });
  expect(charged.status).toBe(200);
  // Each failure told by the call and how it ended: never what was sent or answered.
  const failure = async (name: keyof typeof psps) => {
    const [line] = await waitForLine(/reconciliation with the PSP failed/, new RegExp(`/${name}/`));
    return (JSON.parse(line!) as { err: Record<string, unknown> }).err;
  };
  expect(await failure('unreachable')).toMatchObject({
    type: 'PspError',
    operation: 'token',
    method: 'POST',
    path: '/unreachable/oauth/token',
    code: 'ECONNREFUSED',
    elapsedMs: expect.any(Number) as number,
  });
  expect(await failure('s401')).toMatchObject({ type: 'PspError', path: '/s401/oauth/token', status: 401 });
  expect(await failure('s500')).toMatchObject({ type: 'PspError', method: 'GET', path: '/s500/v2/pix', status: 500 });
  expect(await failure('refusing')).toMatchObject({ type: 'PspError', path: '/refusing/oauth/token' });
  await waitForLine(/"service":"payments"/, /charge creation at the PSP failed/);

  // Each service refused by the database (a wrong password, given apart or in the URL) and by NATS (an unknown seed).
  const logins = readLocalSecrets(stack.secretsFile).services;
  const strangerSeed = path.join(stack.dir, 'stranger.nk');
  fs.writeFileSync(strangerSeed, new TextDecoder().decode(createUser().getSeed()), { mode: 0o600 });
  // A seed file holding no seed at all: the marker itself.
  const markerSeed = path.join(stack.dir, 'marker.nk');
  fs.writeFileSync(markerSeed, MARKERS.NKEY_SEED, { mode: 0o600 });
  const mongo = new URL(stack.mongoUrl);
  await Promise.all(
    SERVICE_NAMES.map(async (name) => {
      const login = { MONGO_URL: stack.mongoUrl, MONGO_USERNAME: logins[name].user };
      const inUrl = new URL(mongo);
      inUrl.username = logins[name].user;
      inUrl.password = MARKERS.MONGO_URL_PASSWORD;
      await startRefused(name, 'db-password', { ...login, MONGO_PASSWORD: MARKERS.MONGO_PASSWORD });
      await startRefused(name, 'db-url', { MONGO_URL: inUrl.toString() });
      // A URL the driver cannot read, which its error quotes whole.
      await startRefused(name, 'db-url-unreadable', { MONGO_URL: `mongodb://${inUrl.username}:${inUrl.password}@` });
      await startRefused(name, 'nats-seed', {
        ...login,
        MONGO_PASSWORD: logins[name].password,
        NATS_NKEY_SEED_FILE: strangerSeed,
      });
      await startRefused(name, 'nats-marker-seed', {
        ...login,
        MONGO_PASSWORD: logins[name].password,
        NATS_NKEY_SEED_FILE: markerSeed,
      });
    }),
  );
  for (const name of SERVICE_NAMES) {
    const own = (label: string) => fs.readFileSync(path.join(stack.dir, 'logs', `${name}-${label}.log`), 'utf8');
    expect(own('db-password')).toMatch(/Authentication failed/i);
    expect(own('db-url')).toMatch(/Authentication failed/i);
    expect(own('db-url-unreadable')).toMatch(/failed to start: MongoParseError/);
    expect(own('nats-seed')).toMatch(/Authorization Violation/i);
    expect(own('nats-marker-seed')).toMatch(/failed to start/);
  }

  const forbidden: [string, string][] = [
    ...Object.entries(MARKERS),
    ['the webhook secret', store.webhookSecret],
    ['the store token', store.token],
    ...echoedSignatures.flatMap((header, i) =>
      header.split(' ').map((signature, j): [string, string] => [`webhook signature ${i}.${j}`, signature]),
    ),
    ['the Basic credential', Buffer.from(`${MARKERS.PIX_CLIENT_ID}:${MARKERS.PIX_CLIENT_SECRET}`).toString('base64')],
    ['the stranger seed', fs.readFileSync(strangerSeed, 'utf8').trim()],
    ["a refused service's fact signing key", refusedFactKeys.FACT_SIGNING_KEY!],
    ...Object.entries(readLocalSecrets(stack.secretsFile).factKeys).map(([producer, pair]): [string, string] => [
      `${producer}'s fact signing key`,
      pair.privateKey,
    ]),
    ...SERVICE_NAMES.map((name): [string, string] => [`${name}'s database password`, logins[name].password]),
    ["the PSP simulator's database password", readLocalSecrets(stack.secretsFile).pspSimulator.password],
    ["the PSP simulator's OAuth2 client secret", readLocalSecrets(stack.secretsFile).pspClientSecret],
    ...Object.entries(stack.natsCredentials ?? {}).map(([identity, file]): [string, string] => [
      `${identity}'s seed`,
      fs.readFileSync(file, 'utf8').trim(),
    ]),
    ...pemBody(pki.client.key).map((line): [string, string] => ["the PSP client key's PEM body", line]),
    ...pemBody(pki.server.key).map((line): [string, string] => ["the callback server key's PEM body", line]),
  ];
  // Each leak once, as what leaked and the line's service and message.
  const lines = logLines();
  const leaks = new Set<string>();
  for (const line of lines) {
    const where = /"service":"([^"]+)".*"msg":"([^"]*)"/.exec(line)?.slice(1).join(': ') ?? line.slice(0, 120);
    for (const [what, value] of forbidden) if (line.includes(value)) leaks.add(`${what} in ${where}`);
    if (/Basic (?!\[redacted\])\S{6,}/.test(line)) leaks.add(`a Basic credential in ${where}`);
    if (line.includes('PRIVATE KEY-----')) leaks.add(`a PEM private key in ${where}`);
    if (line.includes('MARKER')) leaks.add(`a marker in ${where}`);
  }
  expect([...leaks]).toEqual([]);
}, 180_000);

/** The base64 lines of a PEM's body, each one a piece of the key. */
function pemBody(pem: string): string[] {
  return pem
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
}
