import fs from 'node:fs';
import {
  nkeyAuthenticator,
  PermissionViolationError,
  type ConnectionOptions,
  type NatsConnection,
} from '@nats-io/transport-node';
import { inboxPrefix, type NatsIdentity } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { connectCorked } from './corked-transport';
import { permissionViolations } from './telemetry';

const disconnected = new WeakSet<NatsConnection>();

/**
 * How an identity proves who it is: the file holding its nkey seed (NATS_NKEY_SEED_FILE) and, where
 * the server speaks TLS, the certificate authority to verify it with (NATS_CA_FILE). Without a
 * seed it connects as nobody in particular, which only a NATS without authorization accepts (a
 * developer's own).
 */
export interface NatsCredentials {
  seedFile?: string;
  caFile?: string;
}

/**
 * The connection options that make a client `identity`: its nkey (the seed file is read at every
 * connect, so a rotated Secret is taken at the next reconnect) and its own inbox prefix, which is
 * all it may subscribe to for replies.
 */
export function natsAccess(identity: NatsIdentity, credentials: NatsCredentials = {}): Partial<ConnectionOptions> {
  const { seedFile, caFile } = credentials;
  return {
    inboxPrefix: inboxPrefix(identity),
    ...(seedFile && { authenticator: nkeyAuthenticator(() => new TextEncoder().encode(readSeed(seedFile))) }),
    ...(caFile && { tls: { caFile } }),
  };
}

function readSeed(file: string): string {
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * Connects to NATS and keeps reconnecting for ever: a NATS restart delays work, it never ends a
 * service. Status changes are logged so an SRE sees disconnections in the service's own log; an
 * operation NATS refuses to this identity is logged as an error and counted
 * (nats_permission_violations_total), since it means a bug or a client out of its bounds.
 */
export async function connectNats(
  url: string,
  identity: NatsIdentity,
  logger: Logger,
  credentials: NatsCredentials = {},
): Promise<NatsConnection> {
  const nc = await connectCorked({
    servers: url.split(',').map((server) => server.trim()),
    name: identity,
    ...natsAccess(identity, credentials),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
    // Otherwise every request captures a stack trace for its error, which costs more CPU than the
    // request itself at a few hundred a second; our errors say which subject failed anyway.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') disconnected.add(nc);
      if (status.type === 'reconnect') disconnected.delete(nc);
      if (status.type === 'error' && status.error instanceof PermissionViolationError) {
        const { operation, subject, queue } = status.error;
        permissionViolations.inc({ operation, subject: violationLabel(subject) });
        logger.error({ nats: 'permissions violation', operation, subject, queue }, 'NATS refused an operation');
      } else if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        // The server's error says why (an authorization violation: a seed it does not know); the logger tells it safely.
        logger.warn(
          { nats: status.type, ...(status.type === 'error' && { err: status.error }) },
          'nats connection status',
        );
      }
    }
  })();
  return nc;
}

/**
 * The subject as a metric label: an ack or a reply subject carries sequence numbers or a random
 * token, so only its stable head is kept (one series per consumer or inbox, not one per message).
 */
export function violationLabel(subject: string): string {
  const tokens = subject.split('.');
  if (subject.startsWith('$JS.ACK.')) return [...tokens.slice(0, 4), '>'].join('.');
  if (subject.startsWith('_INBOX.')) return [...tokens.slice(0, 2), '>'].join('.');
  // A service import's reply subject: a random token per request.
  if (subject.startsWith('_R_.')) return '_R_.>';
  return subject;
}

/**
 * Which connection to the cluster a client has now: a reconnect, to the same server or another,
 * makes a new one (the server names each client it takes).
 */
export function currentConnection(nc: NatsConnection): string {
  return `${nc.info?.server_id}/${nc.info?.client_id}`;
}

/** True while the connection is up: not closed, not draining, not waiting to reconnect. */
export function isNatsConnected(nc: NatsConnection): boolean {
  return !nc.isClosed() && !nc.isDraining() && !disconnected.has(nc);
}

export type { NatsConnection };
