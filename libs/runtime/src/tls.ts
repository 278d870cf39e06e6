import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { RequestListener } from 'node:http';

/** Server certificate and key, and the CA whose client certificates are accepted (PEM). */
export interface ServerMutualTls {
  cert: string;
  key: string;
  clientCa: string;
}

export function readPem(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

/**
 * An idle kept-alive connection outlives what a client or proxy in front keeps one for (a load
 * balancer's 60 s; a PSP's own pool), so the server never closes one they are about to reuse: with
 * Node's 5 s, a request sent on it just then fails with "other side closed" (a 502 behind a proxy,
 * a callback the PSP must send again). Headers must come before the keep-alive ends (Node's advice).
 */
const KEEP_ALIVE_MS = 65_000;

export function outlastClients(server: http.Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1000;
}

/**
 * Serves a request listener over HTTP, or over HTTPS that demands a client certificate signed by
 * `clientCa` (mutual TLS: a peer without one never reaches the listener) and refuses renegotiation.
 */
export function listen(
  handler: RequestListener,
  port: number,
  host: string,
  tls: ServerMutualTls | null,
): Promise<http.Server> {
  const server = tls
    ? https.createServer(
        { cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: true, rejectUnauthorized: true },
        handler,
      )
    : http.createServer(handler);
  outlastClients(server);
  // A connection's client certificate stays the one of its handshake, so it is judged once per
  // connection (the adapter's callback pins); renegotiating (TLS 1.2) is also a known way to tie
  // up a server's CPU, and no client of ours needs it.
  if (tls) server.on('secureConnection', (socket: TLSSocket) => socket.disableRenegotiation());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
