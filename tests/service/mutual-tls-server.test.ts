import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { listen } from '@pix/runtime';
import { makeTestPki, type TestPki } from '../support/certificates';

/**
 * The mutual TLS server the adapter takes the PSP's callbacks on: a connection keeps the client
 * certificate of its handshake (the callback pins judge it once per connection), so a client's
 * attempt to renegotiate, where TLS 1.2 allows one, ends its connection.
 */
describe('listen with mutual TLS', () => {
  let pki: TestPki;
  let server: http.Server;
  /** The server's end of each connection, as it was made. */
  const serverSide: tls.TLSSocket[] = [];

  beforeAll(async () => {
    pki = makeTestPki();
    server = await listen(
      (req, res) => res.end((req.socket as tls.TLSSocket).getPeerCertificate().fingerprint256),
      0,
      '127.0.0.1',
      { cert: pki.server.cert, key: pki.server.key, clientCa: pki.ca },
    );
    server.on('secureConnection', (socket: tls.TLSSocket) => serverSide.push(socket));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    pki.remove();
  });

  /** A TLS 1.2 connection with the client's certificate: renegotiation is TLS 1.2's. */
  const connect = () =>
    new Promise<tls.TLSSocket>((resolve, reject) => {
      const socket = tls.connect({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        ca: pki.ca,
        cert: pki.client.cert,
        key: pki.client.key,
        servername: 'localhost',
        maxVersion: 'TLSv1.2',
        checkServerIdentity: () => undefined,
      });
      socket.once('secureConnect', () => resolve(socket));
      socket.once('error', reject);
    });

  /** One request on the connection, and its answer (kept alive: whole once its body of Content-Length came). */
  const ask = (socket: tls.TLSSocket) =>
    new Promise<string>((resolve) => {
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString('utf8');
        const [, length, body] = /Content-Length: (\d+)\r\n\r\n([\s\S]*)$/.exec(answer) ?? [];
        if (length !== undefined && body?.length === Number(length)) {
          socket.removeAllListeners('data');
          resolve(answer);
        }
      });
      socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    });

  it('serves a client the CA certified, and ends its connection when it asks to renegotiate', async () => {
    const socket = await connect();
    socket.on('error', () => undefined);
    expect(await ask(socket)).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const served = serverSide.at(-1) as tls.TLSSocket;
    const serverClosed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 3000);
      served.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.renegotiate({ rejectUnauthorized: true }, () => undefined);
    // Refused, the server ends the connection; renegotiated, it would keep it and answer as before.
    expect(await serverClosed).toBe(true);
    socket.destroy();
  });
});
