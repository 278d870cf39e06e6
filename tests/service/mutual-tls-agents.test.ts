import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { got, keptAliveAgents, RequestError, type MutualTls } from '@pix/http';
import { makeTestPki, type TestPki } from '../support/certificates';

/**
 * The pools the adapter calls its PSP through (and the simulator its receivers): the client
 * certificate and the server's CA are the pool's, in one secure context, not each call's options.
 */
describe('keptAliveAgents with mutual TLS', () => {
  let pki: TestPki;
  let server: https.Server;
  let url: string;
  let connections = 0;

  beforeAll(async () => {
    pki = makeTestPki();
    // A PSP: only clients its CA certified, and each answer names the certificate it was shown.
    server = https.createServer(
      { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
      (req, res) => res.end((req.socket as TLSSocket).getPeerCertificate().fingerprint256),
    );
    server.on('secureConnection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    pki.remove();
  });

  const tlsOf = (client: { cert: string; key: string }, certificateAuthority = pki.ca): MutualTls => ({
    certificate: client.cert,
    key: client.key,
    certificateAuthority,
  });
  const call = (agent: ReturnType<typeof keptAliveAgents>) => got(url, { agent, retry: { limit: 0 } }).text();

  it('presents its client certificate on every connection, and keeps the connection', async () => {
    const agent = keptAliveAgents(tlsOf(pki.client));
    const before = connections;
    const shown = await call(agent);
    expect(shown).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(await call(agent)).toBe(shown);
    expect(connections - before).toBe(1);
    // A new connection (the server closed the last one) presents the same certificate.
    agent.https.destroy();
    expect(await call(agent)).toBe(shown);
    expect(connections - before).toBe(2);
    agent.https.destroy();
  });

  it('is refused by the server with a certificate of another CA', async () => {
    const agent = keptAliveAgents(tlsOf(pki.stranger));
    await expect(call(agent)).rejects.toBeInstanceOf(RequestError);
    agent.https.destroy();
  });

  it("refuses a server whose certificate its CA did not sign, and got's error holds no key", async () => {
    // The stranger's CA is not the server's: the client must not believe it.
    const strangerCa = makeTestPki();
    const agent = keptAliveAgents(tlsOf(pki.client, strangerCa.ca));
    const error = await call(agent).then(
      () => null,
      (err: unknown) => err,
    );
    strangerCa.remove();
    agent.https.destroy();
    expect(error).toBeInstanceOf(RequestError);
    const failed = error as InstanceType<typeof RequestError>;
    expect(failed.code).toMatch(/UNABLE_TO_VERIFY|SELF_SIGNED|CERT/);
    // The call's options, which the error carries (and a careless log would print), hold no key.
    const { https: tls } = failed.options;
    expect([tls.key, tls.certificate, tls.certificateAuthority]).toEqual([undefined, undefined, undefined]);
  });
});
