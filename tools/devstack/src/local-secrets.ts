import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PSP_SIMULATOR, SERVICE_NAMES, type ServiceName } from './layout';

/** A user name and its password. */
export interface Login {
  user: string;
  password: string;
}

/**
 * Every secret a local stack needs, generated on its first start and kept for later ones (make up
 * after make down finds its database with the same passwords). Nothing here is a default: each
 * stack directory gets its own.
 */
export interface LocalSecrets {
  /** PostgreSQL's superuser: initdb, pg_cron's jobs, the devstack's own set-up, postgresUrl. */
  superuser: Login;
  /** The role FerretDB runs every query as: DocumentDB's admin role, not a PostgreSQL superuser. */
  ferretdb: Login;
  /** The engine's administrator for tools (the bench, the tests' direct reads): mongoAdminUrl. */
  admin: Login;
  /** One login per service at FerretDB. */
  services: Record<ServiceName, Login>;
  /** The PSP simulator's own login at FerretDB (its database is its own too). */
  pspSimulator: Login;
  /** The OAuth2 client secret the simulator issued to the platform (its OAUTH_CLIENT_SECRET, the adapter's PIX_CLIENT_SECRET). */
  pspClientSecret: string;
  /** The gateway's SECRETS_KEYS (`kid:base64key`) and DASHBOARD_SESSION_SECRET. */
  secretsKeys: string;
  dashboardSessionSecret: string;
  /**
   * The key each producer of money-moving facts signs them with (FACT_SIGNING_KEY), and its public
   * half for the service that verifies them (PIX_FACTS_PUBLIC_KEYS, PAYMENT_FACTS_PUBLIC_KEYS).
   */
  factKeys: Record<FactProducer, FactKeyPair>;
}

/** The services that state signed facts: the adapter (pix.events.*) and payments (payments.events.*). */
export type FactProducer = 'pix-provider-adapter' | 'payments';

/** An Ed25519 pair as the settings take it: base64 PKCS#8 DER and base64 SPKI DER. */
export interface FactKeyPair {
  privateKey: string;
  publicKey: string;
}

function factKeyPair(): FactKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

/** Where a stack directory keeps its secrets (0700, files 0600). */
export function secretsFileOf(stackDir: string): string {
  return path.join(stackDir, 'secrets', 'local-secrets.json');
}

/** 192 random bits, URL-safe: no escaping in a URL, a pgpass line or a SCRAM exchange. */
function password(): string {
  return randomBytes(24).toString('base64url');
}

/** The database login of a service: its own name (hyphens and all, quoted in SQL). */
export function serviceUser(name: ServiceName): string {
  return name;
}

function generate(): LocalSecrets {
  return {
    superuser: { user: 'postgres', password: password() },
    ferretdb: { user: 'ferretdb', password: password() },
    admin: { user: 'pix_admin', password: password() },
    services: Object.fromEntries(
      SERVICE_NAMES.map((name) => [name, { user: serviceUser(name), password: password() }]),
    ) as Record<ServiceName, Login>,
    secretsKeys: `local1:${randomBytes(32).toString('base64')}`,
    dashboardSessionSecret: randomBytes(32).toString('base64url'),
    factKeys: { 'pix-provider-adapter': factKeyPair(), payments: factKeyPair() },
    pspSimulator: { user: PSP_SIMULATOR, password: password() },
    pspClientSecret: password(),
  };
}

/**
 * The secrets in `file`, generated (and written, readable by this user only) when it does not
 * exist yet; `created` says which, since a PostgreSQL cluster older than the file needs its
 * superuser's password set. A secret added to LocalSecrets since the file was written is
 * generated into it, so a stack made before starts again.
 */
export function loadLocalSecrets(file: string): { secrets: LocalSecrets; created: boolean } {
  if (fs.existsSync(file)) {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LocalSecrets>;
    const secrets = { ...generate(), ...stored };
    if (Object.keys(secrets).length > Object.keys(stored).length)
      writePrivateFile(file, `${JSON.stringify(secrets, null, 2)}\n`);
    return { secrets, created: false };
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secrets = generate();
  fs.writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return { secrets, created: true };
}

/** The secrets of a stack that already has them (a replica joining it, a restart). */
export function readLocalSecrets(file: string): LocalSecrets {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as LocalSecrets;
}

/** Writes a file only this user may read (a URL with a password, a pgpass file). */
export function writePrivateFile(file: string, text: string, owner?: { uid: number; gid: number }): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  if (owner) fs.chownSync(file, owner.uid, owner.gid);
}
