import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { SERVICE_NAMES } from './layout';
import {
  loadLocalSecrets,
  readLocalSecrets,
  secretsFileOf,
  writePrivateFile,
  type LocalSecrets,
} from './local-secrets';
import { assertPortFree, isAlive, launch, sleep, type RunAs, type Started } from './processes';

/**
 * A PostgreSQL server of the stack's own, reached over loopback TCP with a password
 * (scram-sha-256); `secretsFile` holds its logins (LocalSecrets), the superuser's among them.
 */
export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  secretsFile: string;
}

/** The cluster's superuser, and the OS user that owns the cluster when the stack runs as root. */
const SUPERUSER = 'postgres';
const OS_USER = 'postgres';

/** The database that holds the DocumentDB extension; every stack's MongoDB databases live in it. */
export const ENGINE_DATABASE = 'postgres';

/**
 * Settings for a throwaway development and test server. fsync and full-page writes are off: a
 * crash of the machine may lose data, a crash or kill -9 of PostgreSQL does not (what it wrote is
 * in the OS's cache). synchronous_commit stays on, since a commit acknowledged to FerretDB must
 * survive a kill of PostgreSQL. No unix socket (everything connects over loopback TCP), so no
 * socket path can be too long.
 *
 * DocumentDB (the engine under FerretDB 2) loads at start with pg_cron, which runs its background
 * jobs (TTL deletes every minute, index builds) in the engine's database, connecting over loopback.
 * The documentdb.* settings are those FerretDB's own packaging sets. The local engine's container
 * image (scripts/images.sh) runs with the same settings, as a configuration file (`engineConf`).
 */
const SERVER_SETTINGS = [
  'listen_addresses=127.0.0.1',
  'unix_socket_directories=',
  // Nothing here outlives the machine, so an OS crash need not be survived: no fsync. Full-page
  // writes stay on: without them the RUM indexes DocumentDB builds came back corrupt from a kill -9
  // of PostgreSQL ("right sibling of RUM page is of different type", then VACUUM crashing), in the
  // first of three rounds of updates under load; with them, none in three.
  'fsync=off',
  // After a kill -9 (the chaos test's database fault) PostgreSQL replays the WAL written since its
  // last checkpoint before it answers: at 50 creates a second the default max_wal_size (1 GB) let
  // ~600 MB pile up between checkpoints, 1.3 s of redo before the first query. A checkpoint every
  // 256 MB keeps that to a few tenths of a second.
  'max_wal_size=256MB',
  'shared_preload_libraries=pg_cron,pg_documentdb_core,pg_documentdb',
  `cron.database_name=${ENGINE_DATABASE}`,
  'cron.host=127.0.0.1',
  // DocumentDB's jobs run every minute: not worth a log line each.
  'cron.log_run=off',
  // DocumentDB polls its queue of background index builds with one pg_cron job per allowed
  // concurrent build, every 2 s by default; pg_cron runs each over a new connection (a fork and a
  // scram login), so that was a connection a second and about 1 % of a core with nothing to do.
  // FerretDB 2.7 never queues a build (createIndexes calls create_indexes_non_concurrently, which
  // builds at once), so the queue is always empty; 60, the setting's maximum, polls it every minute
  // (a build someone queues by hand waits up to a minute longer to start). ensureDocumentDb brings
  // a cluster made under the old schedule to this one.
  'documentdb.indexBuildScheduleInSec=60',
  'documentdb.enableLetAndCollationForQueryMatch=on',
  'documentdb.enableNowSystemVariable=on',
  'documentdb.enableSortbyIdPushDownToPrimaryKey=on',
  'documentdb.enableSchemaValidation=on',
  'documentdb.enableBypassDocumentValidation=on',
  // Several FerretDB processes (one per test stack) share the server, each with its own pool.
  'max_connections=500',
];

/**
 * SERVER_SETTINGS, with pg_stat_statements loaded when PG_STAT_STATEMENTS=1: what PostgreSQL runs
 * per operation, for a measurement (`CREATE EXTENSION pg_stat_statements`, then read its view).
 */
export function serverSettings(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.PG_STAT_STATEMENTS !== '1') return SERVER_SETTINGS;
  return SERVER_SETTINGS.map((setting) =>
    setting.startsWith('shared_preload_libraries=') ? `${setting},pg_stat_statements` : setting,
  ).concat(['pg_stat_statements.track=all']);
}

/** SERVER_SETTINGS as a postgresql.conf fragment. */
export function engineConf(): string {
  return SERVER_SETTINGS.map((setting) => {
    const [name, ...value] = setting.split('=');
    return `${name} = '${value.join('=').replace(/'/g, "''")}'\n`;
  }).join('');
}

/** Where initdb and postgres are: beside an initdb on PATH, or Debian's /usr/lib/postgresql/<v>/bin. */
export function postgresBinDir(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const initdb = dir && path.join(dir, 'initdb');
    if (!initdb || !fs.existsSync(initdb)) continue;
    const real = path.dirname(fs.realpathSync(initdb));
    if (fs.existsSync(path.join(real, 'postgres'))) return real;
  }
  const debian = '/usr/lib/postgresql';
  const versions = fs.existsSync(debian)
    ? fs
        .readdirSync(debian)
        .filter((v) => fs.existsSync(path.join(debian, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (!newest) throw new Error('PostgreSQL (initdb, postgres) is not installed: run `make infra`');
  return path.join(debian, newest, 'bin');
}

/** initdb and postgres refuse to run as root; as root the cluster belongs to the user postgres. */
function clusterOwner(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, OS_USER], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(`running as root, PostgreSQL needs the OS user ${OS_USER}: run \`make infra\``);
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The cluster's data directory, data/<name> in the stack's directory. As root, the owner must be
 * able to reach it: the stack's own directories are opened for traversal, and when a directory
 * above the checkout is closed to other users (root's home) the cluster lives in the temporary
 * directory instead, with data/<name> a link to it (removeStackDir removes both).
 */
function clusterDir(stackDir: string, owner: RunAs | undefined, name: string): string {
  const dir = path.join(stackDir, 'data', name);
  const link = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink() && !fs.existsSync(dir)) fs.unlinkSync(dir); // the temporary directory was wiped
  if (fs.existsSync(dir)) return fs.realpathSync(dir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!owner) return dir;
  for (const open of [stackDir, path.dirname(dir)]) fs.chmodSync(open, fs.statSync(open).mode | 0o011);
  fs.chownSync(dir, owner.uid, owner.gid);
  const reachable = spawnSync('test', ['-w', dir], { uid: owner.uid, gid: owner.gid }).status === 0;
  if (reachable) return dir;
  fs.rmdirSync(dir);
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), `pix-${name}-`));
  fs.chownSync(elsewhere, owner.uid, owner.gid);
  fs.symlinkSync(elsewhere, dir);
  return elsewhere;
}

/** The superuser's password reaches initdb through a file (never a command line), removed at once. */
function initdb(bin: string, dataDir: string, owner: RunAs | undefined, password: string): void {
  const pwfile = path.join(path.dirname(dataDir), `.initdb-pw-${process.pid}`);
  writePrivateFile(pwfile, `${password}\n`, owner);
  try {
    const result = spawnSync(
      path.join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        SUPERUSER,
        '--auth=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ],
      { cwd: dataDir, encoding: 'utf8', uid: owner?.uid, gid: owner?.gid },
    );
    if (result.status !== 0) throw new Error(`initdb failed in ${dataDir}: ${result.stderr || result.error?.message}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

/**
 * A cluster made before its secrets file (by a devstack that trusted every local connection) has a
 * superuser without a password: single-user mode, which needs no login, sets it (through stdin).
 */
function setSuperuserPassword(bin: string, dataDir: string, owner: RunAs | undefined, password: string): void {
  const result = spawnSync(path.join(bin, 'postgres'), ['--single', '-D', dataDir, ENGINE_DATABASE], {
    cwd: dataDir,
    encoding: 'utf8',
    uid: owner?.uid,
    gid: owner?.gid,
    input: `ALTER ROLE ${SUPERUSER} PASSWORD '${password}';\n`,
  });
  if (result.status !== 0) {
    throw new Error(`setting the superuser's password in ${dataDir} failed: ${result.stderr || result.error?.message}`);
  }
}

/**
 * Who may log in to PostgreSQL itself, rewritten at every start: the superuser and FerretDB's role,
 * with a password, over loopback. The services' and the administrator's logins exist for FerretDB
 * to check (it reads their SCRAM verifiers through its own connection) and are refused here, so a
 * service's password does not open PostgreSQL.
 */
function writeHba(dataDir: string, secrets: LocalSecrets, owner: RunAs | undefined): void {
  const lines = [
    '# Written by tools/devstack at every start (src/postgres.ts): edits here are lost.',
    `host all ${SUPERUSER} 127.0.0.1/32 scram-sha-256`,
    `host all ${secrets.ferretdb.user} 127.0.0.1/32 scram-sha-256`,
    '',
  ];
  writePrivateFile(path.join(dataDir, 'pg_hba.conf'), lines.join('\n'), owner);
}

/**
 * pg_cron's jobs and DocumentDB's loopback connections (the engine opens some from inside the
 * server, as the current role) log in like any client: PGPASSFILE gives them the passwords.
 */
function writePgpass(dataDir: string, secrets: LocalSecrets, owner: RunAs | undefined): string {
  const file = path.join(dataDir, 'pgpass');
  const lines = [secrets.superuser, secrets.ferretdb].map((login) => `*:*:*:${login.user}:${login.password}`);
  writePrivateFile(file, `${lines.join('\n')}\n`, owner);
  return file;
}

/** Runs fn with a client connected to one database of the server, as its superuser. */
export async function withPostgres<T>(
  server: PostgresServer,
  database: string,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const { superuser } = readLocalSecrets(server.secretsFile);
  const client = new Client({
    host: server.host,
    port: server.port,
    user: superuser.user,
    password: superuser.password,
    database,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Waits until the server accepts queries (it accepts connections earlier, while still starting). */
async function waitForPostgres(server: PostgresServer, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('postgres exited before accepting queries');
    const ready = await withPostgres(server, 'postgres', (c) => c.query('SELECT 1')).then(
      () => true,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`postgres did not answer on port ${server.port} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * Starts a PostgreSQL server on 127.0.0.1:port with its cluster in the stack's directory, created
 * on first use and kept across restarts (make up after make down finds its data again), as are
 * its logins (`secretsFile`, generated on first use). `name`: the process's, its data directory's
 * and its log's (the PSP simulators' server is another one beside the platform's).
 */
export async function startPostgres(
  stackDir: string,
  port: number,
  detached: boolean,
  timeoutMs = 90_000,
  secretsFile = secretsFileOf(stackDir),
  name = 'postgres',
): Promise<{ started: Started; server: PostgresServer }> {
  const bin = postgresBinDir();
  const owner = clusterOwner();
  const dataDir = clusterDir(stackDir, owner, name);
  const { secrets, created } = loadLocalSecrets(secretsFile);
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) initdb(bin, dataDir, owner, secrets.superuser.password);
  else if (created) setSuperuserPassword(bin, dataDir, owner, secrets.superuser.password);
  writeHba(dataDir, secrets, owner);
  const pgpass = writePgpass(dataDir, secrets, owner);
  await assertPortFree(port, name);
  const settings = serverSettings().flatMap((s) => ['-c', s]);
  const started = launch(name, path.join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings], {
    env: { ...process.env, PGPASSFILE: pgpass },
    logFile: path.join(stackDir, 'logs', `${name}.log`),
    detached,
    cwd: dataDir,
    user: owner,
  });
  started.stopSignal = 'SIGINT';
  const server = { host: '127.0.0.1', port, user: SUPERUSER, secretsFile };
  let exited = false;
  started.child?.once('exit', () => (exited = true));
  await waitForPostgres(server, timeoutMs, () => !exited && isAlive(started.pid));
  return { started, server };
}

/** A role name or a password as SQL text. */
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** Whose data a server holds: the platform's services', the PSP simulators', or both (tests share one). */
export interface ServerUsers {
  services: boolean;
  pspSimulator: boolean;
}

/**
 * Makes the DocumentDB extension (and what it needs: pg_cron, PostGIS, RUM, pgvector) exist in the
 * engine's database, and the logins of the secrets file: FerretDB's role (DocumentDB's admin role,
 * no superuser), the administrator, and those of whom the server is for (`users`): one per service,
 * the PSP simulator's. The login of one it is not for is removed (a server made when it held both).
 * A no-op but for the passwords on a cluster that has them. scripts/install-postgresql.sh installs
 * the extension.
 *
 * The logins are made in SQL rather than with FerretDB's createUser, which makes every user it
 * creates a PostgreSQL superuser (FerretDB 2.7 on DocumentDB 0.106): docs/decisions/local-engine-logins.md.
 */
export async function ensureDocumentDb(
  server: PostgresServer,
  users: ServerUsers = { services: true, pspSimulator: true },
): Promise<void> {
  const secrets = readLocalSecrets(server.secretsFile);
  await withPostgres(server, ENGINE_DATABASE, async (client) => {
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS documentdb CASCADE');
    } catch (err) {
      throw new Error(`DocumentDB is not installed in PostgreSQL (run \`make infra\`): ${(err as Error).message}`);
    }
    // The index build jobs are scheduled when the extension is created, from the setting then in
    // force: a cluster created before indexBuildScheduleInSec was raised keeps polling every 2 s.
    const stale = await client.query(
      "SELECT 1 FROM cron.job WHERE jobname LIKE 'documentdb_index_build_task_%' AND schedule <> '* * * * *'",
    );
    if (stale.rowCount) await client.query('SELECT documentdb_api_internal.schedule_background_index_build_jobs(true)');
    // A statement that fails is logged with its text: not these, which hold passwords.
    await client.query("SET log_min_error_statement = 'panic'");
    const services = SERVICE_NAMES.map((name) => ({ ...secrets.services[name], grant: null }));
    const simulator = [{ ...secrets.pspSimulator, grant: null }];
    const logins = [
      { ...secrets.ferretdb, grant: 'documentdb_admin_role' },
      { ...secrets.admin, grant: null },
      ...(users.services ? services : []),
      ...(users.pspSimulator ? simulator : []),
    ];
    for (const { user } of [...(users.services ? [] : services), ...(users.pspSimulator ? [] : simulator)]) {
      await client.query(`DROP ROLE IF EXISTS ${ident(user)}`);
    }
    for (const { user, password, grant } of logins) {
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [user]);
      const verb = exists.rowCount ? 'ALTER' : 'CREATE';
      await client.query(
        `${verb} ROLE ${ident(user)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${literal(password)}`,
      );
      if (grant) await client.query(`GRANT ${grant} TO ${ident(user)}`);
    }
  });
}

/** The superuser's URL, with its password: what a person uses to look inside (postgresUrl). */
export function postgresUrl(server: PostgresServer): string {
  const { superuser } = readLocalSecrets(server.secretsFile);
  return `postgres://${superuser.user}:${superuser.password}@${server.host}:${server.port}/${ENGINE_DATABASE}`;
}

/** The URL FerretDB connects with: its own role, not the superuser. */
export function ferretdbPostgresUrl(server: PostgresServer): string {
  const { ferretdb } = readLocalSecrets(server.secretsFile);
  return `postgres://${ferretdb.user}:${ferretdb.password}@${server.host}:${server.port}/${ENGINE_DATABASE}`;
}

/** Removes a stack's directory and, when its clusters live in the temporary directory, those too. */
export function removeStackDir(stackDir: string): void {
  const data = path.join(stackDir, 'data');
  for (const entry of fs.existsSync(data) ? fs.readdirSync(data, { withFileTypes: true }) : []) {
    if (entry.isSymbolicLink())
      fs.rmSync(fs.readlinkSync(path.join(data, entry.name)), { recursive: true, force: true });
  }
  fs.rmSync(stackDir, { recursive: true, force: true });
}
