import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Certificate authorities and the certificates they sign, made with the openssl CLI in a directory
 * of their own: the devstack's PSP connection (the simulator's and the adapter's certificates) and
 * the tests' own (tests/support/certificates.ts). Keys are written readable by this user only.
 */

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A self-signed CA, `${name}.crt` and `${name}.key` in `dir`. */
export function makeCa(dir: string, name: string, days: number): void {
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    String(days),
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  );
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
}

/** A certificate `${name}.crt` (and its key) signed by the CA `${ca}`, with these X.509 extensions. */
export function makeLeaf(dir: string, ca: string, name: string, extensions: string, days: number): void {
  fs.writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(
    dir,
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
  );
  fs.chmodSync(path.join(dir, `${name}.key`), 0o600);
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  );
}

/** Extensions of a server certificate for these names (and 127.0.0.1). */
export function serverExtensions(names: readonly string[] = []): string {
  const altNames = [...names.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',');
  return `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`;
}

export const CLIENT_EXTENSIONS = 'extendedKeyUsage=clientAuth\n';

/** The `sha256/…` SPKI pin of `${name}.crt`, as `openssl` prints it (docs/security.md). */
export function spkiPin(dir: string, name: string): string {
  openssl(dir, 'x509', '-in', `${name}.crt`, '-pubkey', '-noout', '-out', `${name}.pub`);
  openssl(dir, 'pkey', '-pubin', '-in', `${name}.pub`, '-outform', 'der', '-out', `${name}.spki`);
  const spki = fs.readFileSync(path.join(dir, `${name}.spki`));
  return `sha256/${createHash('sha256').update(spki).digest('base64')}`;
}

/** A certificate and its key, as files. */
export interface PemFiles {
  cert: string;
  key: string;
}

/**
 * The certificates of the devstack's PSP connection, as a PSP and a merchant hold them:
 *  - the PSP's CA (`psp-ca`) signs the simulator's API server certificate, the client certificate
 *    it issued to the merchant (the adapter's, for API Pix), and the simulator's own client
 *    certificate for its callbacks (pinned by the adapter: PSP_CALLBACK_PINS);
 *  - the platform's CA (`platform-ca`) signs the adapter's callback server certificate, which the
 *    simulator checks when it calls back.
 */
export interface PspPki {
  dir: string;
  pspCa: string;
  platformCa: string;
  pspServer: PemFiles;
  adapterClient: PemFiles;
  pspCallbackClient: PemFiles;
  adapterCallbackServer: PemFiles;
  /** The `sha256/…` pin of the simulator's callback certificate. */
  pspCallbackPin: string;
}

/** How long the devstack's certificates last: a `make up` stack keeps them across restarts. */
const PSP_PKI_DAYS = 365;

function pem(dir: string, name: string): PemFiles {
  return { cert: path.join(dir, `${name}.crt`), key: path.join(dir, `${name}.key`) };
}

/** The stack's PSP certificates in `dir`, made on its first start (openssl) and kept for later ones. */
export function pspPki(dir: string): PspPki {
  const complete = path.join(dir, 'complete');
  if (!fs.existsSync(complete)) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    makeCa(dir, 'psp-ca', PSP_PKI_DAYS);
    makeCa(dir, 'platform-ca', PSP_PKI_DAYS);
    makeLeaf(dir, 'psp-ca', 'psp-server', serverExtensions(['localhost']), PSP_PKI_DAYS);
    makeLeaf(dir, 'psp-ca', 'adapter-client', CLIENT_EXTENSIONS, PSP_PKI_DAYS);
    makeLeaf(dir, 'psp-ca', 'psp-callback-client', CLIENT_EXTENSIONS, PSP_PKI_DAYS);
    makeLeaf(dir, 'platform-ca', 'adapter-callback-server', serverExtensions(['localhost']), PSP_PKI_DAYS);
    fs.writeFileSync(complete, '');
  }
  return {
    dir,
    pspCa: path.join(dir, 'psp-ca.crt'),
    platformCa: path.join(dir, 'platform-ca.crt'),
    pspServer: pem(dir, 'psp-server'),
    adapterClient: pem(dir, 'adapter-client'),
    pspCallbackClient: pem(dir, 'psp-callback-client'),
    adapterCallbackServer: pem(dir, 'adapter-callback-server'),
    pspCallbackPin: spkiPin(dir, 'psp-callback-client'),
  };
}
