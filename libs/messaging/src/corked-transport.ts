import type { Socket } from 'node:net';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
// The client's own connect(), assembled from its parts with our transport: the package has no
// option for it. Both modules are the package's public files (it declares no export map).
import { NatsConnectionImpl, setTransportFactory } from '@nats-io/transport-node/lib/nats-base-client';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport';

/**
 * nats.js's Node transport with its socket writes gathered per turn of the event loop. The client
 * writes its outbound buffer at the end of each microtask queue, so every HTTP request or message a
 * service handles in its own callback costs a write system call of its own (`writeBuffer`: 12-18 %
 * of payments' and the gateway's CPU in their profiles). Here the socket is corked at the first
 * write of a turn and uncorked in that turn's check phase (setImmediate), so what the callbacks of
 * one turn send leaves in one `writev`. Order is the socket's own; a write waits one turn at most.
 * A close uncorks first: the socket is destroyed right after, which would drop corked frames.
 */
export class CorkedTransport extends NodeTransport {
  private corkedSocket: Socket | undefined;

  override send(frame: Uint8Array): void {
    // Undefined before the connection is made and after it is closed, whatever the type says.
    const socket = this.socket as Socket | undefined;
    if (!this.corkedSocket && socket && !this.isClosed) {
      this.corkedSocket = socket;
      socket.cork();
      setImmediate(() => this.uncork());
    }
    super.send(frame);
  }

  override close(err?: Error): Promise<void> {
    this.uncork();
    return super.close(err);
  }

  override disconnect(): void {
    this.uncork();
    super.disconnect();
  }

  private uncork(): void {
    const socket = this.corkedSocket;
    this.corkedSocket = undefined;
    socket?.uncork();
  }
}

/** @nats-io/transport-node's connect(), over CorkedTransport: each reconnect makes one too. */
export function connectCorked(options: ConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new CorkedTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(options);
}
