import fs from 'node:fs';
import path from 'node:path';
import { provisionJetStream } from '@pix/messaging';
import { connectAs, natsAuthorizationFile, natsCredentials, type NatsCredentialFiles } from './nats-access';
import { natsClusterUrl, startNatsCluster, type NatsNodePorts } from './nats-cluster';
import { PSP_SIMULATOR, SERVICE_NAMES, serviceEntry, TOOLS_BIN, type ServiceName } from './layout';
import {
  loadLocalSecrets,
  readLocalSecrets,
  secretsFileOf,
  writePrivateFile,
  type LocalSecrets,
} from './local-secrets';
import {
  ensureDocumentDb,
  ferretdbPostgresUrl,
  postgresUrl,
  startPostgres,
  type PostgresServer,
  type ServerUsers,
} from './postgres';
import {
  adapterApiPixEnv,
  adapterLiveEnv,
  startPspSimulator,
  type PspConnection,
  type PspInstance,
  type PspPorts,
} from './psp-simulator';
import {
  assertPortFree,
  freePort,
  goServerEnv,
  isAlive,
  launch,
  sleep,
  stopPid,
  waitForHttp,
  waitForPort,
  type Started,
} from './processes';

export interface StackPorts {
  /** The NATS server (with a cluster: its first member's client port). */
  nats: number;
  /** With more than one member, NATS runs as a JetStream cluster of these on loopback. */
  natsCluster?: NatsNodePorts[];
  /** A single NATS server's monitoring endpoint (subscriptions by account: /subsz), for the tests that look at interest. */
  natsMonitor?: number;
  /** The stack's own PostgreSQL server (unused when it is given one). */
  postgres: number;
  mongo: number;
  mongoDebug: number;
  /** The PSP simulators' own database server, when the stack runs one (StackOptions.pspDatabase). */
  pspDatabase: DatabasePorts;
  gateway: number;
  adapterHttp: number;
  /** The adapter's live connection's callback server (LIVE_PSP_CALLBACK_PORT). */
  adapterLiveHttp: number;
  ops: Record<ServiceName, number>;
  /** The PSP simulator's (the test connection's PSP). */
  psp: PspPorts;
  /** The stand-in live PSP's (a second simulator: StackOptions.livePsp). */
  livePsp: PspPorts;
}

/** A database server of the stack: PostgreSQL, and FerretDB on it (its client and debug ports). */
export interface DatabasePorts {
  postgres: number;
  mongo: number;
  mongoDebug: number;
}

/** What a running stack is: where to reach it and which processes are its own. */
export interface StackInfo {
  dir: string;
  gatewayUrl: string;
  natsUrl: string;
  /**
   * Each identity's credentials (its nkey seed file) on the stack's NATS: the services', `admin`'s
   * (the admin CLI, the tests, the bench) and the provisioning step's. Absent when the stack was
   * given a NATS of its own (NATS_URL), which asks for none.
   */
  natsCredentials?: NatsCredentialFiles;
  /** Where the services connect, without credentials: each has a login of its own (secretsFile). */
  mongoUrl: string;
  /** The same with the administrator's login, for tools (the bench, tests reading the database). */
  mongoAdminUrl?: string;
  /** The administrator's URL of the test PSP simulator's database (its books), wherever it is (pspDatabase). */
  pspMongoAdminUrl?: string;
  /** The PostgreSQL database under FerretDB, as its superuser (absent when given a MongoDB URL). */
  postgresUrl?: string;
  /** The PostgreSQL server under FerretDB, to restart FerretDB on it. */
  postgres?: PostgresServer;
  /** The stack's logins and keys (LocalSecrets), readable by this user only. */
  secretsFile: string;

  opsUrls: Record<ServiceName, string>;
  /** The stack's PSP simulator (absent when the stack starts no adapter). */
  psp?: PspConnection;
  /** The stand-in live PSP, when the stack runs one (StackOptions.livePsp). */
  livePsp?: PspConnection;
  processes: { name: string; pid: number; stopSignal?: NodeJS.Signals }[];
}

export interface StackOptions {
  /** Data and logs live here. */
  dir: string;
  ports: StackPorts;
  /** Environment for the services, on top of what the stack computes. */
  env?: NodeJS.ProcessEnv;
  /** Use these servers instead of starting NATS or FerretDB. */
  natsUrl?: string;
  /** The identities' credentials on that NATS (another stack's), if it asks for any. */
  natsCredentials?: NatsCredentialFiles;
  mongoUrl?: string;
  /**
   * A PostgreSQL server to keep FerretDB's data in, under a MongoDB database of this stack's own
   * (tests share one server among their stacks); without it the stack starts a server of its own.
   */
  postgres?: PostgresServer;
  /**
   * The secrets of the stack this one joins or extends (a replica started with startService): its
   * services' logins and the gateway's keys. By default the PostgreSQL server's, or the stack
   * directory's own, generated on first start.
   */
  secretsFile?: string;
  /** Detached processes outlive this one (make up); attached ones are stopped with it (tests). */
  detached: boolean;
  /** Which services to start (all by default). */
  services?: readonly ServiceName[];
  /** Whether to start the PSP simulator: by default, when the adapter starts. */
  pspSimulator?: boolean;
  /** Environment for the PSP simulator, on top of what the stack computes. */
  pspEnv?: NodeJS.ProcessEnv;
  /**
   * Where the PSP simulators keep their books: on a database server of their own (`'own'`, as a
   * PSP's are not the platform's: its CPU is the PSP's, which the bench leaves out of the
   * platform's figures), or in a database of their own on the platform's server (`'platform'`).
   * By default their own when the stack starts its own PostgreSQL (make up, the bench, the chaos
   * test), the platform's when it is given one (tests, which share a server among their stacks).
   */
  pspDatabase?: 'own' | 'platform';
  /**
   * Whether to start a second simulator as the stand-in live PSP, with its own certificates,
   * secret, database and ports, and give the adapter a live connection to it (`make up` does,
   * unless LIVE_PSP_API_URL names a real PSP). Only with the test simulator.
   */
  livePsp?: boolean;
  /** The checkout whose built services run (this one by default). */
  root?: string;
}

/** The fixed local ports of `make up`, each overridable from the environment. */
export function defaultPorts(env: NodeJS.ProcessEnv = process.env): StackPorts {
  const n = (name: string, fallback: number) => Number(env[name] ?? fallback);
  const nats = n('NATS_PORT', 14222);
  const members = natsClusterSize(env);
  return {
    nats,
    // Members' client ports follow the first one's; their route ports start at NATS_ROUTE_PORT.
    ...(members > 1 && {
      natsCluster: Array.from({ length: members }, (_, i) => ({
        client: nats + i,
        route: n('NATS_ROUTE_PORT', 16222) + i,
      })),
    }),
    // Not 5432, where the machine may run a PostgreSQL server of its own.
    postgres: n('POSTGRES_PORT', 15432),
    mongo: n('MONGO_PORT', 37017),
    mongoDebug: n('MONGO_DEBUG_PORT', 37018),
    pspDatabase: {
      postgres: n('PSP_POSTGRES_PORT', 15433),
      mongo: n('PSP_MONGO_PORT', 37019),
      mongoDebug: n('PSP_MONGO_DEBUG_PORT', 37020),
    },
    gateway: n('GATEWAY_PORT', 8080),
    adapterHttp: n('ADAPTER_HTTP_PORT', 8081),
    adapterLiveHttp: n('ADAPTER_LIVE_HTTP_PORT', 8084),
    ops: {
      gateway: n('GATEWAY_OPS_PORT', 9101),
      payments: n('PAYMENTS_OPS_PORT', 9102),
      'pix-provider-adapter': n('ADAPTER_OPS_PORT', 9103),
      'webhook-dispatcher': n('DISPATCHER_OPS_PORT', 9104),
    },
    psp: {
      api: n('PSP_API_PORT', 8443),
      backOffice: n('PSP_BACKOFFICE_PORT', 8082),
      ops: n('PSP_OPS_PORT', 9105),
    },
    livePsp: {
      api: n('LIVE_PSP_API_PORT', 8444),
      backOffice: n('LIVE_PSP_BACKOFFICE_PORT', 8085),
      ops: n('LIVE_PSP_OPS_PORT', 9106),
    },
  };
}

/** NATS_CLUSTER: how many NATS servers form the stack's cluster (1, the default: a single server). */
export function natsClusterSize(env: NodeJS.ProcessEnv = process.env): number {
  const size = Number(env.NATS_CLUSTER ?? 1);
  if (!Number.isInteger(size) || size < 1 || size > 5)
    throw new Error(`NATS_CLUSTER must be 1 to 5, not ${env.NATS_CLUSTER}`);
  return size;
}

/** Ports nobody uses, for a stack of its own (tests run several side by side); natsMembers > 1 for a cluster. */
export async function randomPorts(natsMembers = 1): Promise<StackPorts> {
  const natsCluster: NatsNodePorts[] = [];
  for (let i = 0; i < natsMembers && natsMembers > 1; i++) {
    natsCluster.push({ client: await freePort(), route: await freePort() });
  }
  return {
    nats: natsCluster[0]?.client ?? (await freePort()),
    ...(natsCluster.length > 0 ? { natsCluster } : { natsMonitor: await freePort() }),
    postgres: await freePort(),
    mongo: await freePort(),
    mongoDebug: await freePort(),
    pspDatabase: { postgres: await freePort(), mongo: await freePort(), mongoDebug: await freePort() },
    gateway: await freePort(),
    adapterHttp: await freePort(),
    adapterLiveHttp: await freePort(),
    ops: {
      gateway: await freePort(),
      payments: await freePort(),
      'pix-provider-adapter': await freePort(),
      'webhook-dispatcher': await freePort(),
    },
    psp: { api: await freePort(), backOffice: await freePort(), ops: await freePort() },
    livePsp: { api: await freePort(), backOffice: await freePort(), ops: await freePort() },
  };
}

/** Generous on purpose: on a loaded 2-core machine a cold start can take tens of seconds. */
const STARTUP_TIMEOUT_MS = 90_000;

function binary(name: string): string {
  const local = path.join(TOOLS_BIN, name);
  if (fs.existsSync(local)) return local;
  return name; // from PATH
}

/** Where NATS is and who may speak there: what a service, a test or a tool needs to connect. */
export type StackNats = Pick<StackInfo, 'natsUrl' | 'natsCredentials'>;

/**
 * Starts NATS with the stack's authorization (its identities' keys, nats-access.ts): an anonymous
 * client is refused. `open`: without authorization, for a test of the client library alone.
 */
export async function startNats(
  dir: string,
  port: number,
  detached: boolean,
  options: { open?: boolean; monitorPort?: number } = {},
): Promise<Started> {
  const dataDir = path.join(dir, 'data', 'nats');
  fs.mkdirSync(dataDir, { recursive: true });
  await assertPortFree(port, 'nats-server');
  const authorization = options.open ? [] : ['-c', natsAuthorizationFile(dir)];
  const started = launch(
    'nats-server',
    binary('nats-server'),
    [
      ...authorization,
      ...(options.monitorPort ? ['-m', String(options.monitorPort)] : []),
      '-js',
      '-sd',
      dataDir,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
    ],
    {
      env: goServerEnv(),
      logFile: path.join(dir, 'logs', 'nats-server.log'),
      detached,
    },
  );
  await waitForPort('127.0.0.1', port, STARTUP_TIMEOUT_MS, 'nats-server');
  return started;
}

/**
 * FerretDB 2 on PostgreSQL with DocumentDB, with authentication (its default): a client without a
 * valid login may only ping. It runs every query as its own PostgreSQL role, whose URL (with the
 * password) it reads from a file rather than from its command line, which `ps` shows to anyone.
 * `name`: the process's, its state directory's and its log's.
 */
export async function startFerretDb(
  dir: string,
  port: number,
  debugPort: number,
  detached: boolean,
  server: PostgresServer,
  name = 'ferretdb',
): Promise<Started> {
  const stateDir = path.join(dir, 'data', name);
  fs.mkdirSync(stateDir, { recursive: true });
  const urlFile = path.join(dir, 'secrets', `${name}-postgresql-url`);
  writePrivateFile(urlFile, ferretdbPostgresUrl(server));
  await assertPortFree(port, name);
  const started = launch(
    name,
    binary('ferretdb'),
    [
      `--postgresql-url-file=${urlFile}`,
      `--listen-addr=127.0.0.1:${port}`,
      `--debug-addr=127.0.0.1:${debugPort}`,
      `--state-dir=${stateDir}`,
      '--telemetry=disable',
      '--log-level=WARN',
    ],
    { env: goServerEnv(), logFile: path.join(dir, 'logs', `${name}.log`), detached },
  );
  await waitForPort('127.0.0.1', port, STARTUP_TIMEOUT_MS, name);
  return started;
}

/** The PSP simulators' own database server's processes: named as the simulator's, not the platform's. */
export const PSP_DATABASE_PROCESSES = { postgres: `${PSP_SIMULATOR}-postgres`, ferretdb: `${PSP_SIMULATOR}-ferretdb` };

/**
 * One of the stack's database servers: FerretDB on a PostgreSQL server (`server`, given, or one it
 * starts), with the logins of those it is for (`users`), its processes named `names` (the
 * platform's by default; the PSP simulators' own server is another). Its processes go to `started`.
 */
async function startDatabaseServer(options: {
  dir: string;
  ports: DatabasePorts;
  detached: boolean;
  secretsFile: string;
  users: ServerUsers;
  started: Started[];
  server?: PostgresServer;
  names?: { postgres: string; ferretdb: string };
}): Promise<PostgresServer> {
  const { dir, ports, detached, names = { postgres: 'postgres', ferretdb: 'ferretdb' } } = options;
  let server = options.server;
  if (!server) {
    const own = await startPostgres(
      dir,
      ports.postgres,
      detached,
      STARTUP_TIMEOUT_MS,
      options.secretsFile,
      names.postgres,
    );
    options.started.push(own.started);
    server = own.server;
  }
  await ensureDocumentDb(server, options.users);
  options.started.push(await startFerretDb(dir, ports.mongo, ports.mongoDebug, detached, server, names.ferretdb));
  return server;
}

/** A mongodb:// URL without login, with this one. */
function withLogin(mongoUrl: string, login: { user: string; password: string }): string {
  return mongoUrl.replace(/^mongodb:\/\//, `mongodb://${login.user}:${login.password}@`);
}

/** The fact keys a service is given: its own signing key, the public keys of the facts it applies. */
function factKeysOf(name: ServiceName, keys: LocalSecrets['factKeys']): NodeJS.ProcessEnv {
  switch (name) {
    case 'pix-provider-adapter':
      return { FACT_SIGNING_KEY: keys['pix-provider-adapter'].privateKey };
    case 'payments':
      return {
        FACT_SIGNING_KEY: keys.payments.privateKey,
        PIX_FACTS_PUBLIC_KEYS: keys['pix-provider-adapter'].publicKey,
      };
    case 'webhook-dispatcher':
    case 'gateway':
      return { PAYMENT_FACTS_PUBLIC_KEYS: keys.payments.publicKey };
  }
}

/** Where NATS is, and the stack's PSP simulators when it runs them: what a service is started against. */
export type StackPeers = StackNats & Pick<StackInfo, 'psp' | 'livePsp'>;

/** The adapter's PSP when none is named (PIX_API_URL): the stack's simulator, if it runs one. */
function simulatorAsked(options: StackOptions, peers: StackPeers): PspConnection | null {
  const env = { ...process.env, ...options.env };
  return !env.PIX_API_URL && peers.psp ? peers.psp : null;
}

function serviceEnv(name: ServiceName, options: StackOptions, nats: StackPeers, mongoUrl: string): NodeJS.ProcessEnv {
  const { ports } = options;
  const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
  const secrets = readLocalSecrets(options.secretsFile ?? secretsFileOf(options.dir));
  // A MongoDB given by URL (MONGO_URL) has logins of its own, which that URL carries.
  const login = options.mongoUrl && !options.secretsFile ? undefined : secrets.services[name];
  const seedFile = nats.natsCredentials?.[name];
  return {
    ...process.env,
    // Local development: merchants test their webhooks on localhost.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    PUBLIC_BASE_URL: gatewayUrl,
    // Each service's keys reach that service only.
    ...(name === 'gateway' && {
      SECRETS_KEYS: secrets.secretsKeys,
      DASHBOARD_SESSION_SECRET: secrets.dashboardSessionSecret,
    }),
    // Each producer's signing key reaches that producer only; the public halves, their verifiers.
    ...factKeysOf(name, secrets.factKeys),
    // No PSP named: the stack's simulator, over its certificates, with its back office; and the
    // stand-in live PSP as the live connection when the stack runs one.
    ...(name === 'pix-provider-adapter' && simulatorOf(options, nats, secrets)),
    ...(name === 'pix-provider-adapter' &&
      nats.livePsp &&
      adapterLiveEnv(nats.livePsp, secrets, ports.adapterLiveHttp)),
    ...(login && { MONGO_USERNAME: login.user, MONGO_PASSWORD: login.password }),
    ...options.env,
    NATS_URL: nats.natsUrl,
    ...(seedFile && { NATS_NKEY_SEED_FILE: seedFile }),
    MONGO_URL: mongoUrl,
    OPS_PORT: String(ports.ops[name]),
    GATEWAY_PORT: String(ports.gateway),
    HTTP_PORT: String(ports.adapterHttp),
    LIVE_PSP_CALLBACK_PORT: String(ports.adapterLiveHttp),
  };
}

/** The adapter's settings for the stack's simulator, when no PSP is named. */
function simulatorOf(options: StackOptions, peers: StackPeers, secrets: LocalSecrets): NodeJS.ProcessEnv {
  const psp = simulatorAsked(options, peers);
  return psp ? adapterApiPixEnv(psp, secrets) : {};
}

/**
 * V8's heap limits for every service's node, the same as the images' CMD (the Dockerfile; a test
 * holds them equal), so the bench measures the memory production runs with (issue 27). Without
 * them V8 sizes a service's heap for the machine's memory: 16 MB semi-spaces (32 MB of young
 * generation held under load) and an old generation that may grow to several times what survived
 * the last full collection before the next one. Under the bench's 32 connections that was 80 to
 * 130 MB of dead objects beside a live heap of 25 to 40 MB. V8 scales that growth factor with the
 * old-space limit (its heap controller: the smallest factor for a small limit), so a 192 MB limit
 * keeps the old generation near its live size; 192 MB is still five times the largest live heap
 * measured, and leaves room under the pods' memory limits (320 and 384 MiB) for what is not heap.
 * 8 MB semi-spaces rather than 4: at 4 payments spent a third of its CPU in scavenges and the
 * list's throughput fell by a quarter (docs/operations.md: memory).
 */
export const SERVICE_HEAP_FLAGS: readonly string[] = ['--max-old-space-size=192', '--max-semi-space-size=8'];

/**
 * The node flags of every service and simulator: the heap's, then SERVICE_NODE_FLAGS, such as
 * `--cpu-prof --cpu-prof-dir=/tmp/prof`, which NODE_OPTIONS refuses (docs/development.md: profiling
 * a service). They come after the heap's flags, so they can change them too (V8 keeps a flag's last value).
 */
function serviceNodeFlags(): string[] {
  return [...SERVICE_HEAP_FLAGS, ...(process.env.SERVICE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean)];
}

/** Starts one service, as its own NATS identity, and waits for its /readyz. */
export async function startService(
  name: ServiceName,
  options: StackOptions,
  nats: StackPeers,
  mongoUrl: string,
): Promise<Started> {
  await assertPortFree(options.ports.ops[name], `${name} (ops)`);
  const logFile = path.join(options.dir, 'logs', `${name}.log`);
  const started = launch(name, process.execPath, [...serviceNodeFlags(), serviceEntry(name, options.root)], {
    env: serviceEnv(name, options, nats, mongoUrl),
    logFile,
    detached: options.detached,
  });
  let exited = false;
  started.child?.once('exit', () => (exited = true));
  try {
    await waitForHttp(
      `http://127.0.0.1:${options.ports.ops[name]}/readyz`,
      60_000,
      name,
      () => !exited && isAlive(started.pid),
      logFile,
    );
    // The adapter registers each connection's callback URL at its simulator as it starts; the stack
    // is up once they have them (or a connection reported itself unready: a test of a broken one),
    // or a payment paid at once would call back nowhere.
    if (name === 'pix-provider-adapter') {
      const connections = [...(simulatorAsked(options, nats) ? ['test'] : []), ...(nats.livePsp ? ['live'] : [])];
      await connectionsSettled(`http://127.0.0.1:${options.ports.ops[name]}/metrics`, connections, 30_000);
    }
  } catch (err) {
    // Not ready in time: stop it, or nobody would (the caller never learns its pid).
    await stopPid(started.pid);
    throw err;
  }
  return started;
}

/**
 * Waits until each of these adapter connections has its callback URL registered at its PSP
 * (psp_callback_registered 1) or is reported unready (psp_connection_ready 0).
 */
async function connectionsSettled(metricsUrl: string, connections: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const metrics = await fetch(metricsUrl).then(
      (res) => res.text(),
      () => '',
    );
    const reads = (metric: string, connection: string, value: number) =>
      new RegExp(`^${metric}\\{[^}]*connection="${connection}"[^}]*\\} ${value}$`, 'm').test(metrics);
    const settled = (connection: string) =>
      reads('psp_callback_registered', connection, 1) || reads('psp_connection_ready', connection, 0);
    if (connections.every(settled)) return;
    if (Date.now() > deadline) {
      throw new Error(`the adapter did not register its callback URL at the PSP within ${timeoutMs / 1000} s`);
    }
    await sleep(100);
  }
}

/** A MongoDB database per stack on a shared engine, named after the stack's (unique) directory. */
function stackDatabase(options: StackOptions): string {
  return options.postgres
    ? `pix_${path
        .basename(options.dir)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, '_')}`
    : 'pix';
}

/**
 * Copies of each stream and bucket: one on each member of the stack's own cluster, as in
 * Kubernetes; on a NATS the stack was given, JETSTREAM_REPLICAS (1 by default), as the
 * provisioning Job reads it.
 */
function streamReplicas(options: StackOptions): number {
  if (!options.natsUrl) return options.ports.natsCluster?.length ?? 1;
  return Number(options.env?.JETSTREAM_REPLICAS ?? process.env.JETSTREAM_REPLICAS ?? 1);
}

/** The provisioning step (`admin nats provision`): the streams, consumers and bucket, before any service. */
async function provision(nats: StackNats, replicas: number): Promise<void> {
  const nc = await connectAs(nats.natsUrl, 'provisioner', nats.natsCredentials, { timeout: 10_000 });
  try {
    await provisionJetStream(nc, replicas);
  } finally {
    await nc.close();
  }
}

/**
 * Starts NATS, PostgreSQL and FerretDB (unless given their URLs or a PostgreSQL server), provisions
 * JetStream, and then the services, each once ready. Each service creates its collections' indexes
 * from its schemas.
 */
export async function startStack(options: StackOptions): Promise<StackInfo & { started: Started[] }> {
  const { ports, dir } = options;
  fs.mkdirSync(dir, { recursive: true });
  const secretsFile = options.secretsFile ?? options.postgres?.secretsFile ?? secretsFileOf(dir);
  loadLocalSecrets(secretsFile);
  const started: Started[] = [];
  try {
    if (!options.natsUrl && ports.natsCluster) {
      started.push(...(await startNatsCluster(dir, ports.natsCluster, options.detached, STARTUP_TIMEOUT_MS)));
    } else if (!options.natsUrl) {
      started.push(await startNats(dir, ports.nats, options.detached, { monitorPort: ports.natsMonitor }));
    }
    const database = stackDatabase(options);
    const mongoUrl = options.mongoUrl ?? `mongodb://127.0.0.1:${ports.mongo}/${database}`;
    // The adapter's PSP: a stack that runs the adapter runs the simulator too, unless told otherwise.
    const runsPsp = options.pspSimulator ?? (options.services ?? SERVICE_NAMES).includes('pix-provider-adapter');
    const pspDatabase = options.pspDatabase ?? (options.mongoUrl || options.postgres ? 'platform' : 'own');
    const ownPspDatabase = runsPsp && pspDatabase === 'own';
    const { admin } = readLocalSecrets(secretsFile);
    const databaseServer = { dir, detached: options.detached, secretsFile, started };
    let server = options.postgres;
    let mongoAdminUrl: string | undefined;
    if (!options.mongoUrl) {
      server = await startDatabaseServer({
        ...databaseServer,
        ports,
        server,
        // A server given (shared by other stacks) keeps every login; the stack's own, only its users'.
        users: { services: true, pspSimulator: !ownPspDatabase || Boolean(options.postgres) },
      });
      mongoAdminUrl = withLogin(mongoUrl, admin);
    }
    const nats: StackNats = options.natsUrl
      ? { natsUrl: options.natsUrl, natsCredentials: options.natsCredentials }
      : {
          natsUrl: ports.natsCluster ? natsClusterUrl(ports.natsCluster) : `nats://127.0.0.1:${ports.nats}`,
          natsCredentials: natsCredentials(dir),
        };
    await provision(nats, streamReplicas(options));
    if (ownPspDatabase) {
      await startDatabaseServer({
        ...databaseServer,
        ports: ports.pspDatabase,
        users: { services: false, pspSimulator: true },
        names: PSP_DATABASE_PROCESSES,
      });
    }
    const pspMongoUrl = ownPspDatabase ? `mongodb://127.0.0.1:${ports.pspDatabase.mongo}/${database}` : mongoUrl;
    /** One of the stack's simulators, calling back the adapter's callback server on `callbackPort`. */
    const simulator = async (instance: PspInstance, callbackPort: number) => {
      const { started: proc, connection } = await startPspSimulator({
        instance,
        dir,
        ports: instance === 'live' ? ports.livePsp : ports.psp,
        mongoUrl: pspMongoUrl,
        secrets: readLocalSecrets(secretsFile),
        ownLogin: !options.mongoUrl || ownPspDatabase,
        env: options.pspEnv,
        detached: options.detached,
        nodeFlags: serviceNodeFlags(),
        callbackUrl: `https://127.0.0.1:${callbackPort}/psp/callbacks`,
      });
      started.push(proc);
      return connection;
    };
    const psp = runsPsp ? await simulator('test', ports.adapterHttp) : undefined;
    const livePsp = psp && options.livePsp ? await simulator('live', ports.adapterLiveHttp) : undefined;
    const peers: StackPeers = { ...nats, psp, livePsp };
    // Services log in with the stack's own logins unless given a MongoDB of another stack's or the operator's.
    const serviceOptions = { ...options, secretsFile: options.mongoUrl ? options.secretsFile : secretsFile };
    for (const name of options.services ?? SERVICE_NAMES) {
      started.push(await startService(name, serviceOptions, peers, mongoUrl));
    }
    return {
      dir,
      gatewayUrl: `http://127.0.0.1:${ports.gateway}`,
      ...nats,
      mongoUrl,
      mongoAdminUrl,
      pspMongoAdminUrl: mongoAdminUrl && psp && withLogin(psp.mongoUrl, admin),
      postgresUrl: server && !options.mongoUrl ? postgresUrl(server) : undefined,
      postgres: options.mongoUrl ? undefined : server,
      secretsFile,
      psp,
      livePsp,
      opsUrls: Object.fromEntries(SERVICE_NAMES.map((name) => [name, `http://127.0.0.1:${ports.ops[name]}`])) as Record<
        ServiceName,
        string
      >,
      processes: started.map(({ name, pid, stopSignal }) => ({ name, pid, stopSignal })),
      started,
    };
  } catch (err) {
    await stopProcesses(started);
    throw err;
  }
}

/** Stops processes in the reverse order of their start: services first, infrastructure last. */
export async function stopProcesses(
  processes: readonly { name: string; pid: number; stopSignal?: NodeJS.Signals }[],
): Promise<void> {
  for (const proc of [...processes].reverse()) await stopPid(proc.pid, undefined, proc.stopSignal);
}
