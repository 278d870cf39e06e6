import fs from 'node:fs';
import path from 'node:path';
import { createUser, fromSeed } from '@nats-io/nkeys';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { NATS_IDENTITIES, natsAuthorization, type NatsIdentity } from '@pix/contracts';
import { natsAccess } from '@pix/messaging';

/** For each identity, the file holding its nkey seed (what stack.json's `natsCredentials` lists). */
export type NatsCredentialFiles = Record<NatsIdentity, string>;

/**
 * The stack's NATS identities, one nkey each, generated the first time under `<dir>/nats-credentials/`
 * and kept: a later `make up` finds the same keys, so whatever holds a path keeps working. A seed
 * file is its owner's alone to read (0600).
 */
export function natsCredentials(dir: string): NatsCredentialFiles {
  const folder = path.join(dir, 'nats-credentials');
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const files = {} as NatsCredentialFiles;
  for (const identity of NATS_IDENTITIES) {
    const file = path.join(folder, `${identity}.nk`);
    if (!fs.existsSync(file)) {
      fs.writeFileSync(file, `${new TextDecoder().decode(createUser().getSeed())}\n`, { mode: 0o600, flag: 'wx' });
    }
    files[identity] = file;
  }
  return files;
}

/**
 * Writes the nats-server configuration that holds the stack's authorization (the permissions
 * table of @pix/contracts, with each identity's public key) and returns its path; every member of
 * a cluster starts with the same one.
 */
export function natsAuthorizationFile(dir: string): string {
  const credentials = natsCredentials(dir);
  const publicKeys = Object.fromEntries(
    NATS_IDENTITIES.map((identity) => [identity, [publicKeyOf(credentials[identity])]]),
  ) as Record<NatsIdentity, string[]>;
  const file = path.join(dir, 'nats-authorization.conf');
  fs.writeFileSync(file, natsAuthorization(publicKeys));
  return file;
}

function publicKeyOf(seedFile: string): string {
  return fromSeed(new TextEncoder().encode(fs.readFileSync(seedFile, 'utf8').trim())).getPublicKey();
}

/**
 * A connection as one of the stack's identities (without credentials, to a NATS that asks for none),
 * for the tools that speak to the stack: the provisioning step, the tests, the bench.
 */
export function connectAs(
  url: string,
  identity: NatsIdentity,
  credentials: NatsCredentialFiles | undefined,
  options: { timeout?: number; reconnect?: boolean } = {},
): Promise<NatsConnection> {
  return connect({
    servers: url.split(','),
    name: identity,
    ...natsAccess(identity, { seedFile: credentials?.[identity] }),
    ...(options.timeout !== undefined && { timeout: options.timeout }),
    ...(options.reconnect && { maxReconnectAttempts: -1, waitOnFirstConnect: true }),
  });
}
