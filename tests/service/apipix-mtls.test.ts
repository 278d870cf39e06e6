import type http from 'node:http';
import express from 'express';
import mongoose from 'mongoose';
import { got } from '@pix/http';
import { freePort } from '@pix/devstack';
import { ApiPixClient } from '../../services/pix-provider-adapter/src/api-pix/client';
import { SandboxBooks } from '../../services/pix-provider-adapter/src/sandbox-psp/books';
import { SandboxPayer } from '../../services/pix-provider-adapter/src/sandbox-psp/simulator';
import { listen } from '../../services/pix-provider-adapter/src/tls';
import { closeHttpServer } from '@pix/runtime';
import { createLogger } from '@pix/observability';
import { ErrorMessages } from '@pix/contracts';
import { api } from '../support/api';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { makeTestPki, type TestPki } from '../support/certificates';
import { apiPixPspApp, callbackOverHttp } from './api-pix-psp';
import { startPrivateStack, type PrivateStack } from '../support/stack';

const CLIENT = { id: 'merchant-client', secret: 'merchant-client-secret' };

/**
 * PIX_PROVIDER=apipix end to end over real HTTPS with mutual TLS: the adapter's API Pix client
 * (OAuth2 client credentials, client certificate, retries) talks to the sandbox PSP simulator
 * served here over mTLS, and the PSP calls the adapter's callback endpoint presenting its client
 * certificate. Certificates are made with openssl for this run.
 */
describe('apipix provider over mutual TLS', () => {
  let pki: TestPki;
  let psp: http.Server;
  let stack: PrivateStack;
  let pspUrl: string;
  let callbackUrl: string;
  /** The PSP answers 503 to the next this many charge requests (to see the client retry). */
  let failNextCharges = 0;
  const chargeAttempts = new Map<string, number>();
  /** The PSP's books, in the stack's database: the adapter in apipix mode keeps none of its own. */
  const books = new SandboxBooks();

  beforeAll(async () => {
    pki = makeTestPki();
    const pspPort = await freePort();
    pspUrl = `https://127.0.0.1:${pspPort}`;
    stack = await startPrivateStack({
      env: {
        PIX_PROVIDER: 'apipix',
        PIX_API_URL: `${pspUrl}/v2`,
        PIX_CLIENT_ID: CLIENT.id,
        PIX_CLIENT_SECRET: CLIENT.secret,
        PIX_TLS_CERT_FILE: pki.files.clientCert,
        PIX_TLS_KEY_FILE: pki.files.clientKey,
        PIX_TLS_CA_FILE: pki.files.ca,
        CALLBACK_TLS_CERT_FILE: pki.files.serverCert,
        CALLBACK_TLS_KEY_FILE: pki.files.serverKey,
        CALLBACK_CLIENT_CA_FILE: pki.files.ca,
        REVIEW_TIMEOUT: '2s',
      },
    });
    callbackUrl = `https://127.0.0.1:${stack.ports.adapterHttp}/psp/callbacks`;
    await mongoose.connect(stack.mongoUrl);
    const app = express();
    app.put('/v2/cob/:txid', (req, res, next) => {
      chargeAttempts.set(req.params.txid, (chargeAttempts.get(req.params.txid) ?? 0) + 1);
      if (failNextCharges > 0) {
        failNextCharges--;
        res.status(503).end();
        return;
      }
      next();
    });
    app.use(
      apiPixPspApp(books, {
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
        merchantName: 'LOJA MTLS',
        merchantCity: 'CURITIBA',
        locationHost: 'psp.example/pix',
      }),
    );
    psp = await listen(app, pspPort, '127.0.0.1', { cert: pki.server.cert, key: pki.server.key, clientCa: pki.ca });
  });
  afterAll(async () => {
    await stack.stop();
    await closeHttpServer(psp);
    await mongoose.disconnect();
    pki.remove();
  });

  function payer(): SandboxPayer {
    return new SandboxPayer(
      books,
      callbackOverHttp({ url: callbackUrl, headers: {}, tls: tlsAs(pki.client) }),
      createLogger('psp', 'silent'),
    );
  }

  function tlsAs(pem: { cert: string; key: string }) {
    return { certificate: pem.cert, key: pem.key, certificateAuthority: pki.ca };
  }

  it('creates the charge through the API Pix client (retrying a 503) and is paid through an mTLS callback', async () => {
    const client = await paymentsClient(stack);
    failNextCharges = 1;
    const payment = await client.create(12.34);
    const txid = payment.id.replace(/-/g, '');
    expect(chargeAttempts.get(txid)).toBe(2);
    expect(String(payment.qrCopyPaste)).toContain('LOJA MTLS');

    const { pix } = await payer().pay(txid, undefined, false);
    await client.waitForStatus(payment.id, 'approved');

    // The PSP calling again with the same endToEndId changes nothing; anyone else is refused.
    const callback = { pix: [{ endToEndId: pix.endToEndId, txid, valor: '12.34', horario: pix.paidAt.toISOString() }] };
    const again = await got.post(`${callbackUrl}/pix`, { json: callback, https: tlsAs(pki.client) });
    expect(again.statusCode).toBe(200);
    await expect(
      got.post(`${callbackUrl}/pix`, { json: callback, https: tlsAs(pki.stranger), retry: { limit: 0 } }),
    ).rejects.toThrow();
    await expect(
      got.post(`${callbackUrl}/pix`, { json: callback, https: { certificateAuthority: pki.ca }, retry: { limit: 0 } }),
    ).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });

  it('refunds a payment left in review through the PSP over mTLS', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(50);
    const txid = payment.id.replace(/-/g, '');
    await payer().pay(txid, 49_00, false);
    await client.waitForStatus(payment.id, 'review');
    await client.waitForStatus(payment.id, 'not_approved');
    const refunds = await mongoose.connection.db
      ?.collection('sandbox_psp_refunds')
      .find({ amountCents: 4900 })
      .toArray();
    expect(refunds).toHaveLength(1);
  });

  it('refuses a client without a certificate signed by the PSP CA', async () => {
    const stranger = new ApiPixClient({
      baseUrl: `${pspUrl}/v2`,
      tokenUrl: `${pspUrl}/oauth/token`,
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      pixKey: 'pix@example.com',
      tls: { certificate: pki.stranger.cert, key: pki.stranger.key, certificateAuthority: pki.ca },
      timeoutMs: 2000,
      retryLimit: 0,
      onRequest: () => undefined,
    });
    await expect(
      stranger.createCharge({ txid: 'a'.repeat(32), amountCents: 500, expiresInSeconds: 60, description: null }),
    ).rejects.toThrow();
  });

  it('serves no sandbox routes: with a real PSP they are unknown routes, with or without a token', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(9.99);
    for (const base of ['/api-public/sandbox/payments', '/public-api/v1/sandbox/payments']) {
      for (const action of ['pay', 'review', 'clear', 'reject']) {
        for (const token of [client.store.token, undefined]) {
          const res = await api(stack.gatewayUrl, 'POST', `${base}/${payment.id}/${action}`, { token });
          expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.routeNotFound } });
        }
      }
    }
    expect((await client.get(payment.id)).status).toBe('pending');
  });
});
