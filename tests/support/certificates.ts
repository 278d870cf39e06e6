import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Pem {
  cert: string;
  key: string;
}

/** A CA and certificates it signs, made with the openssl CLI at test time, for 127.0.0.1 (and the host names asked for). */
export interface TestPki {
  dir: string;
  ca: string;
  server: Pem;
  client: Pem;
  /** A client certificate signed by another CA, which a mutual-TLS server must refuse. */
  stranger: Pem;
  /** Another client certificate of the same CA (as a PSP's CA certifies its merchants too), with a key of its own. */
  sibling: Pem;
  /** The `sha256/…` SPKI pin of the client certificate, as `openssl` prints it (docs/security.md). */
  clientPin: string;
  files: Record<'ca' | 'serverCert' | 'serverKey' | 'clientCert' | 'clientKey', string>;
  remove: () => void;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function makeCa(dir: string, name: string): void {
  openssl(
    dir,
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  );
}

function makeLeaf(dir: string, ca: string, name: string, extensions: string): void {
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
    '1',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  );
}

export function makeTestPki(serverNames: readonly string[] = []): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-pki-'));
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  const altNames = [...serverNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',');
  makeLeaf(dir, 'ca', 'server', `subjectAltName=${altNames}\nextendedKeyUsage=serverAuth\n`);
  makeLeaf(dir, 'ca', 'client', 'extendedKeyUsage=clientAuth\n');
  makeLeaf(dir, 'other-ca', 'stranger', 'extendedKeyUsage=clientAuth\n');
  makeLeaf(dir, 'ca', 'sibling', 'extendedKeyUsage=clientAuth\n');
  openssl(dir, 'x509', '-in', 'client.crt', '-pubkey', '-noout', '-out', 'client.pub');
  openssl(dir, 'pkey', '-pubin', '-in', 'client.pub', '-outform', 'der', '-out', 'client.spki');
  const spki = fs.readFileSync(path.join(dir, 'client.spki'));
  const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
  const pem = (name: string): Pem => ({ cert: read(`${name}.crt`), key: read(`${name}.key`) });
  return {
    dir,
    ca: read('ca.crt'),
    server: pem('server'),
    client: pem('client'),
    stranger: pem('stranger'),
    sibling: pem('sibling'),
    clientPin: `sha256/${createHash('sha256').update(spki).digest('base64')}`,
    files: {
      ca: path.join(dir, 'ca.crt'),
      serverCert: path.join(dir, 'server.crt'),
      serverKey: path.join(dir, 'server.key'),
      clientCert: path.join(dir, 'client.crt'),
      clientKey: path.join(dir, 'client.key'),
    },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
