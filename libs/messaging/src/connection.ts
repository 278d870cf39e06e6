import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@pix/observability';

const disconnected = new WeakSet<NatsConnection>();

/**
 * Connects to NATS and keeps reconnecting for ever: a NATS restart delays work, it never ends a
 * service. Status changes are logged so an SRE sees disconnections in the service's own log.
 */
export async function connectNats(url: string, name: string, logger: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(',').map((server) => server.trim()),
    name,
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
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        logger.warn({ nats: status.type }, 'nats connection status');
      }
    }
  })();
  return nc;
}

/** True while the connection is up: not closed, not draining, not waiting to reconnect. */
export function isNatsConnected(nc: NatsConnection): boolean {
  return !nc.isClosed() && !nc.isDraining() && !disconnected.has(nc);
}

export type { NatsConnection };
