import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
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
 * Serves a request listener over HTTP, or over HTTPS that demands a client certificate signed by
 * `clientCa` (mutual TLS: a peer without one never reaches the listener).
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
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
