import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLIENT_EXTENSIONS, makeCa, makeLeaf, serverExtensions, spkiPin } from '@pix/devstack';

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

/** A test's certificates last a day. */
const DAYS = 1;

export function makeTestPki(serverNames: readonly string[] = []): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-pki-'));
  makeCa(dir, 'ca', DAYS);
  makeCa(dir, 'other-ca', DAYS);
  makeLeaf(dir, 'ca', 'server', serverExtensions(serverNames), DAYS);
  makeLeaf(dir, 'ca', 'client', CLIENT_EXTENSIONS, DAYS);
  makeLeaf(dir, 'other-ca', 'stranger', CLIENT_EXTENSIONS, DAYS);
  makeLeaf(dir, 'ca', 'sibling', CLIENT_EXTENSIONS, DAYS);
  const read = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
  const pem = (name: string): Pem => ({ cert: read(`${name}.crt`), key: read(`${name}.key`) });
  return {
    dir,
    ca: read('ca.crt'),
    server: pem('server'),
    client: pem('client'),
    stranger: pem('stranger'),
    sibling: pem('sibling'),
    clientPin: spkiPin(dir, 'client'),
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
