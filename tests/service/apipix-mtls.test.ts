import fs from 'node:fs';
import mongoose from 'mongoose';
import { got } from '@pix/http';
import { readLocalSecrets, type PemFiles, type PspConnection } from '@pix/devstack';
import { SandboxBooks } from '../../services/psp-simulator/src/books';
import { Streams, Subjects } from '@pix/contracts';
import { ApiPixClient } from '../../services/pix-provider-adapter/src/api-pix/client';
import type { OnPspRequest } from '../../services/pix-provider-adapter/src/providers/provider';
import { api, eventually } from '../support/api';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { makeTestPki, type TestPki } from '../support/certificates';
import { metric } from '../webhooks/helpers';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { streamMessages } from '../support/streams';

/**
 * A PSP connection end to end over real HTTPS with mutual TLS: the adapter's API Pix client
 * (OAuth2 client credentials, client certificate, retries) talks to the stack's PSP simulator (its
 * own process, database and CA: the devstack makes its certificates and registers the adapter's
 * callback URL with it), and the simulator calls the adapter's callback endpoint back presenting
 * its own client certificate. The simulator's back office pays, and sets the PSP's faults; its
 * journal tells what the adapter asked.
 */
describe('the API Pix client over mutual TLS', () => {
  /** Another CA's certificates: a stranger to both the PSP and the adapter. */
  let strangers: TestPki;
  let stack: PrivateStack;
  let psp: PspConnection;
  let callbackUrl: string;
  /** The PSP's books, in the simulator's own database: the adapter keeps none of its own. */
  const books = new SandboxBooks();

  beforeAll(async () => {
    strangers = makeTestPki();
    stack = await startPrivateStack({
      env: {
        REVIEW_TIMEOUT: '2s',
        // Short, so that a refund answered late times the client out within the test.
        PIX_TIMEOUT: '2s',
        // Reconciliation every few seconds, so a lost callback is found within the test.
        RECONCILE_INTERVAL: '3s',
        RECONCILE_OVERLAP: '20s',
      },
      pspEnv: { MERCHANT_NAME: 'LOJA MTLS', MERCHANT_CITY: 'CURITIBA', LOCATION_HOST: 'psp.example/pix' },
    });
    psp = stack.psp!;
    callbackUrl = `https://127.0.0.1:${stack.ports.adapterHttp}/psp/callbacks`;
    await mongoose.connect(stack.pspMongoAdminUrl!);
  });
  afterAll(async () => {
    await stack.stop();
    await mongoose.disconnect();
    strangers.remove();
  });
  afterEach(async () => {
    await backOffice('DELETE', '/faults');
  });

  function backOffice<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, json?: object) {
    return got<T>(`${psp.backOfficeUrl}${path}`, { method, json, responseType: 'json', retry: { limit: 0 } });
  }

  /** A payer pays the charge at the PSP (its amount unless `valor`), its callback lost with `dropCallback`. */
  async function pay(txid: string, options: { valor?: string; dropCallback?: boolean } = {}) {
    const { body } = await backOffice<{ endToEndId: string; horario: string }>('POST', `/cob/${txid}/pay`, options);
    return { endToEndId: body.endToEndId, paidAt: new Date(body.horario) };
  }

  /** The PSP misbehaves: on an API Pix operation (unavailable, slow) or a kind of callback (drop). */
  async function fault(
    target: string,
    body: { kind: 'unavailable' | 'slow' | 'drop'; times?: number; delayMs?: number },
  ) {
    await backOffice('PUT', `/faults/${target}`, body);
  }

  async function clearFault(target: string) {
    await backOffice('DELETE', `/faults/${target}`);
  }

  /** The API Pix requests of an operation the simulator served, oldest first. */
  async function journal(operation: string) {
    const { body } = await backOffice<{
      requests: { params: Record<string, string>; query: Record<string, string>; status: number | null }[];
    }>('GET', `/journal?operation=${operation}`);
    return body.requests;
  }

  /** The pages of GET /pix read since the journal had `since` of them. */
  async function listedPages(since = 0) {
    return (await journal('pix.list')).slice(since).map((line) => Number(line.query['paginacao.paginaAtual']));
  }

  function tlsAs(files: PemFiles, ca = psp.pki.platformCa) {
    return {
      certificate: fs.readFileSync(files.cert, 'utf8'),
      key: fs.readFileSync(files.key, 'utf8'),
      certificateAuthority: fs.readFileSync(ca, 'utf8'),
    };
  }

  /** psp_callbacks_refused_total of a reason, as the adapter's metrics tell it. */
  const refusals = (reason: string) =>
    metric(stack.opsUrls['pix-provider-adapter'], 'psp_callbacks_refused_total', `reason="${reason}"`);

  /** POST {callback}/pix as the PSP (its pinned certificate), once: the adapter's answer. */
  function callBack(pix: { endToEndId: string; txid: string; valor: string; horario: string }) {
    return got.post(`${callbackUrl}/pix`, {
      json: { pix: [pix] },
      https: tlsAs(psp.pki.pspCallbackClient),
      retry: { limit: 0 },
      throwHttpErrors: false,
      timeout: { request: 30_000 },
    });
  }

  it("believes a callback only as the PSP reads it back, and applies the PSP's values", async () => {
    const client = await paymentsClient(stack);
    const [paid, other, underpaid] = [await client.create(10), await client.create(20), await client.create(30)];
    const txidOf = (payment: { id: string }) => payment.id.replace(/-/g, '');
    const pix = await pay(txidOf(paid));
    await client.waitForStatus(paid.id, 'approved');
    const told = { endToEndId: pix.endToEndId, txid: txidOf(paid), valor: '10.00', horario: pix.paidAt.toISOString() };

    // Another payment's Pix told as this one's, or a Pix the PSP never received: refused, counted.
    const [mismatched, unknown] = [await refusals('readback_mismatch'), await refusals('readback_not_found')];
    expect((await callBack({ ...told, txid: txidOf(other), valor: '20.00' })).statusCode).toBe(200);
    const made = { ...told, endToEndId: `E${'9'.repeat(31)}`, txid: txidOf(other), valor: '20.00' };
    expect((await callBack(made)).statusCode).toBe(200);
    expect(await refusals('readback_mismatch')).toBe(mismatched + 1);
    expect(await refusals('readback_not_found')).toBe(unknown + 1);

    // A Pix the PSP received, its callback lost and its listing down (so only a callback can tell
    // of it), told with less than it was and an old time: refused. Told right but for its time:
    // believed, and what is told on is the PSP's account, its time included.
    await fault('pix.list', { kind: 'unavailable' });
    try {
      const full = await pay(txidOf(underpaid), { dropCallback: true });
      const lower = { ...told, endToEndId: full.endToEndId, txid: txidOf(underpaid), valor: '29.00' };
      lower.horario = '2020-01-01T00:00:00.000Z';
      expect((await callBack(lower)).statusCode).toBe(200);
      expect(await refusals('readback_mismatch')).toBe(mismatched + 2);
      expect((await callBack({ ...lower, valor: '30.00' })).statusCode).toBe(200);
      // The whole amount: approved, not held for review as the lower one would have been.
      await client.waitForStatus(underpaid.id, 'approved');
      const facts = await streamMessages(stack, Streams.pix.name, Subjects.pixPaid);
      const fact = JSON.stringify(facts.find((f) => f.msgId === full.endToEndId)?.data);
      expect(fact).toContain(full.paidAt.toISOString());
      expect(fact).not.toContain('2020-01-01');
    } finally {
      await clearFault('pix.list');
    }
    expect((await client.get(other.id)).status).toBe('pending');
    for (const payment of [paid, underpaid]) expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });

  it('answers 503 to a callback it cannot read back, and loses nothing: reconciliation applies it once', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(17.5);
    const txid = payment.id.replace(/-/g, '');
    const pix = await pay(txid, { dropCallback: true });
    const told = { endToEndId: pix.endToEndId, txid, valor: '17.50', horario: pix.paidAt.toISOString() };
    const failed = await refusals('readback_failed');
    await fault('pix.get', { kind: 'unavailable' });
    try {
      expect((await callBack(told)).statusCode).toBe(503);
      expect(await refusals('readback_failed')).toBe(failed + 1);
      // The PSP down for read-backs still lists its Pix: the payment is applied meanwhile.
      await client.waitForStatus(payment.id, 'approved', 20_000);
    } finally {
      await clearFault('pix.get');
    }
    // The PSP's next try, read back now: taken, and nothing applied twice.
    expect((await callBack(told)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });

  it('creates the charge through the API Pix client (retrying a 503) and is paid through an mTLS callback', async () => {
    const client = await paymentsClient(stack);
    await fault('cob.put', { kind: 'unavailable', times: 1 });
    const payment = await client.create(12.34);
    const txid = payment.id.replace(/-/g, '');
    expect((await journal('cob.put')).filter((line) => line.params.txid === txid)).toHaveLength(2);
    expect(String(payment.qrCopyPaste)).toContain('LOJA MTLS');

    const pix = await pay(txid);
    await client.waitForStatus(payment.id, 'approved');
    // Believed once read back at the PSP.
    expect((await journal('pix.get')).map((line) => line.params.e2eid)).toContain(pix.endToEndId);

    // The PSP calling again with the same endToEndId changes nothing; anyone else is refused.
    const callback = { pix: [{ endToEndId: pix.endToEndId, txid, valor: '12.34', horario: pix.paidAt.toISOString() }] };
    const again = await got.post(`${callbackUrl}/pix`, { json: callback, https: tlsAs(psp.pki.pspCallbackClient) });
    expect(again.statusCode).toBe(200);
    // A certificate of the same CA with another key (the merchant's, which the PSP issued): past TLS, refused and counted.
    const foreign = await refusals('foreign_certificate');
    const sibling = await got.post(`${callbackUrl}/pix`, {
      json: callback,
      https: tlsAs(psp.pki.adapterClient),
      retry: { limit: 0 },
      throwHttpErrors: false,
    });
    expect(sibling.statusCode).toBe(403);
    expect(await refusals('foreign_certificate')).toBe(foreign + 1);
    await expect(
      got.post(`${callbackUrl}/pix`, {
        json: callback,
        https: { certificate: strangers.stranger.cert, key: strangers.stranger.key },
        retry: { limit: 0 },
      }),
    ).rejects.toThrow();
    await expect(
      got.post(`${callbackUrl}/pix`, {
        json: callback,
        https: { certificateAuthority: fs.readFileSync(psp.pki.platformCa, 'utf8') },
        retry: { limit: 0 },
      }),
    ).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });

  it('refunds a payment left in review through the PSP over mTLS', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(50);
    const txid = payment.id.replace(/-/g, '');
    const pix = await pay(txid, { valor: '49.00' });
    await client.waitForStatus(payment.id, 'review');
    await client.waitForStatus(payment.id, 'not_approved');
    await eventually(
      () => client.get(payment.id),
      (p) => p.refundedAmount === 49,
    );
    const refunds = await pspRefundsOf(pix.endToEndId);
    expect(refunds.map((r) => [r.amountCents, r.requests, r.devolucao.status])).toEqual([[4900, 1, 'DEVOLVIDO']]);
  });

  /** An approved payment of the given store, paid through an mTLS callback. */
  async function approvedPayment(client: Awaited<ReturnType<typeof paymentsClient>>, amount: number) {
    const payment = await client.create(amount);
    const pix = await pay(payment.id.replace(/-/g, ''));
    await client.waitForStatus(payment.id, 'approved');
    return { payment, pix };
  }

  function refund(client: Awaited<ReturnType<typeof paymentsClient>>, paymentId: string, body: unknown) {
    return api<{ id: string; status: string }>(
      stack.gatewayUrl,
      'POST',
      `/public-api/v1/payments/${paymentId}/refunds`,
      {
        token: client.store.token,
        body,
      },
    );
  }

  async function refundSettled(
    client: Awaited<ReturnType<typeof paymentsClient>>,
    paymentId: string,
    refundId: string,
  ) {
    return eventually(
      async () =>
        (
          await api<{ status: string; failureReason: string | null }>(
            stack.gatewayUrl,
            'GET',
            `/public-api/v1/payments/${paymentId}/refunds/${refundId}`,
            { token: client.store.token },
          )
        ).body,
      (r) => r.status !== 'pending',
      20_000,
    );
  }

  function pspRefundsOf(endToEndId: string) {
    return mongoose.connection
      .db!.collection<{
        amountCents: number;
        requests: number;
        devolucao: { id: string; status: string; descricao?: string };
      }>('sandbox_psp_refunds')
      .find({ endToEndId })
      .toArray();
  }

  it("sends a merchant's refund once, with its descricao, and the PSP's callback settles it", async () => {
    const client = await paymentsClient(stack);
    const { payment, pix } = await approvedPayment(client, 30);
    const asked = await refund(client, payment.id, { amount: 12.5, reason: 'Troca de produto' });
    expect(asked.body.status).toBe('pending');
    expect(await refundSettled(client, payment.id, asked.body.id)).toMatchObject({ status: 'succeeded' });
    const atPsp = await pspRefundsOf(pix.endToEndId);
    expect(atPsp.map((r) => [r.amountCents, r.requests, r.devolucao.status, r.devolucao.descricao])).toEqual([
      [1250, 1, 'DEVOLVIDO', 'Troca de produto'],
    ]);
    expect(await client.get(payment.id)).toMatchObject({ refundedAmount: 12.5 });
  });

  it('reads a refund back after its PUT timed out, and does not send it again', async () => {
    const client = await paymentsClient(stack);
    const { payment, pix } = await approvedPayment(client, 20);
    await fault('devolucao.put', { kind: 'slow', delayMs: 4000, times: 1 });
    // No callback either: only the adapter's read after its timeout can settle it.
    await fault('callback.devolucao', { kind: 'drop' });
    try {
      const asked = await refund(client, payment.id, {});
      expect(await refundSettled(client, payment.id, asked.body.id)).toMatchObject({ status: 'succeeded' });
    } finally {
      await clearFault('callback.devolucao');
    }
    const [atPsp, ...others] = await pspRefundsOf(pix.endToEndId);
    expect(others).toEqual([]);
    // One PUT, timed out on the client's side: the retry found the devolução with a GET.
    expect((await journal('devolucao.put')).filter((line) => line.params.id === atPsp!.devolucao.id)).toHaveLength(1);
    expect(atPsp?.requests).toBe(1);
  });

  /** pix_refunds_awaiting_psp, as the adapter's metrics tell it when scraped. */
  const refundsAwaitingPsp = () => metric(stack.opsUrls['pix-provider-adapter'], 'pix_refunds_awaiting_psp');

  it('settles a refund whose callback never comes by reading it back, counted as awaiting the PSP meanwhile', async () => {
    const client = await paymentsClient(stack);
    const { payment } = await approvedPayment(client, 21);
    await fault('callback.devolucao', { kind: 'drop' });
    try {
      const asked = await refund(client, payment.id, { amount: 1 });
      // Taken by the PSP and processing: its read-back waits as a schedule on PIX_COMMANDS.
      await eventually(refundsAwaitingPsp, (n) => n >= 1);
      expect(await refundSettled(client, payment.id, asked.body.id)).toMatchObject({ status: 'succeeded' });
    } finally {
      await clearFault('callback.devolucao');
    }
    expect(await client.get(payment.id)).toMatchObject({ refundedAmount: 1 });
    // Settled: its schedule fired and left the stream.
    await eventually(refundsAwaitingPsp, (n) => n === 0);
  });

  it("settles as failed, with the PSP's detail, a refund the PSP refuses", async () => {
    const client = await paymentsClient(stack);
    const { payment, pix } = await approvedPayment(client, 22);
    // The PSP took another devolução of this Pix meanwhile (outside the platform): ours is now too much.
    await books.putRefund(`${pix.endToEndId}/outside1`, {
      endToEndId: pix.endToEndId,
      devolucao: { id: 'outside1', rtrId: 'D1', valor: '22.00', horario: { solicitacao: '' }, status: 'DEVOLVIDO' },
      amountCents: 2200,
      pix: { endToEndId: pix.endToEndId, txid: payment.id.replace(/-/g, ''), valor: '22.00', horario: '' },
      planned: { status: 'DEVOLVIDO', motivo: null },
      notified: true,
    });
    const asked = await refund(client, payment.id, { amount: 5 });
    expect(await refundSettled(client, payment.id, asked.body.id)).toEqual(
      expect.objectContaining({ status: 'failed', failureReason: 'refund larger than the Pix' }),
    );
    // Reconciliation (every 3 s here) tells the platform of the PSP's own devolução: recorded as a
    // refund with origin psp. Ours, refused, never counts: 22, never 27.
    const listed = await eventually(
      () => client.refunds(payment.id),
      (refunds) => refunds.length === 2,
      20_000,
    );
    expect(listed.map((r) => [r.amount, r.status, r.origin]).sort()).toEqual([
      [22, 'succeeded', 'psp'],
      [5, 'failed', 'merchant'],
    ]);
    expect(await client.get(payment.id)).toMatchObject({ refundedAmount: 22 });
  });

  it('removes the charge of a cancelled payment, retrying while the PSP answers 503', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(13);
    const txid = payment.id.replace(/-/g, '');
    await fault('cob.patch', { kind: 'unavailable', times: 2 });
    const cancelled = await api(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${payment.id}/cancel`, {
      token: client.store.token,
    });
    expect(cancelled.body).toMatchObject({ status: 'not_approved' });
    const charge = await eventually(
      () => books.findCharge(txid),
      (c) => c?.cob.status === 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      20_000,
    );
    expect(charge?.cob.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    expect((await journal('cob.patch')).filter((line) => line.params.txid === txid)).toHaveLength(3);
  });

  /** Charges the PSP holds that no payment knows, each paid by a Pix it listed: a window of several pages. */
  async function otherPixAtThePsp(count: number) {
    for (let n = 0; n < count; n++) {
      const txid = `other${Date.now()}${String(n).padStart(4, '0')}`.padEnd(26, '0');
      const now = new Date();
      const pix = { endToEndId: `E${txid}`.slice(0, 32), amountCents: 500, paidAt: now, held: false, notified: true };
      await books.putCharge(txid, {
        cob: { txid } as never,
        amountCents: 500,
        expiresAt: new Date(now.getTime() + 3600_000),
      });
      await books.recordPix(txid, { ...pix }, now);
      await books.ledgerPix(txid, pix);
    }
  }

  it('reconciles a Pix whose callback the PSP lost: every page of GET /pix, and one status change', async () => {
    const client = await paymentsClient(stack);
    await otherPixAtThePsp(120);
    const payment = await client.create(13.57);
    const since = (await journal('pix.list')).length;
    // The PSP receives the Pix and never calls back.
    await pay(payment.id.replace(/-/g, ''), { dropCallback: true });
    await client.waitForStatus(payment.id, 'approved', 20_000);
    // A window of more than a hundred Pix is read in pages, all of them.
    expect(await listedPages(since)).toContain(1);
    // Later windows overlap this one and list the Pix again: it stays one change.
    const runs = (await listedPages(since)).filter((page) => page === 0).length;
    await eventually(
      async () => (await listedPages(since)).filter((page) => page === 0).length,
      (n) => n >= runs + 2,
      20_000,
    );
    expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });

  it('keeps a window a PSP that was down could not list, and reconciles it once the PSP is back', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(24.68);
    await fault('pix.list', { kind: 'unavailable' });
    try {
      const since = (await journal('pix.list')).length;
      await pay(payment.id.replace(/-/g, ''), { dropCallback: true });
      await eventually(
        async () => (await listedPages(since)).length,
        (n) => n >= 4,
        30_000,
      );
      expect((await client.get(payment.id)).status).toBe('pending');
    } finally {
      await clearFault('pix.list');
    }
    await client.waitForStatus(payment.id, 'approved', 30_000);
    expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });

  const pem = (file: string) => fs.readFileSync(file, 'utf8');

  /** A client of the stack's PSP with the platform's credentials, and this certificate and key. */
  function clientOf(
    certificate: string,
    key: string,
    options: { maxConnections?: number; timeoutMs?: number; onRequest?: OnPspRequest } = {},
  ) {
    return new ApiPixClient({
      baseUrl: psp.apiUrl,
      tokenUrl: psp.oauthUrl,
      clientId: psp.clientId,
      clientSecret: readLocalSecrets(stack.secretsFile).pspClientSecret,
      pixKey: psp.receiverKey,
      tls: { certificate, key, certificateAuthority: pem(psp.pki.pspCa) },
      timeoutMs: options.timeoutMs ?? 2000,
      retryLimit: 0,
      maxConnections: options.maxConnections ?? 64,
      onRequest: options.onRequest ?? (() => undefined),
    });
  }

  it('keeps at most its connections open to a slow PSP: the calls beyond wait for one, and each is answered', async () => {
    const client = clientOf(pem(psp.pki.adapterClient.cert), pem(psp.pki.adapterClient.key), {
      maxConnections: 2,
      timeoutMs: 10_000,
    });
    await client.checkAccess();
    expect(client.connectionUse()).toEqual({ open: 1, waiting: 0 });
    await fault('cob.get', { kind: 'slow', delayMs: 1500, times: 6 });
    const reads = Array.from({ length: 6 }, (_, i) => client.readCharge(`bounded${String(i).padStart(25, '0')}`));
    // Two on the wire, four waiting in the pool (not four more handshakes against a slow PSP).
    await eventually(
      async () => client.connectionUse(),
      (use) => use.open === 2 && use.waiting === 4,
      5000,
    );
    expect(await Promise.all(reads)).toEqual(Array(6).fill(null));
    expect(client.connectionUse()).toEqual({ open: 2, waiting: 0 });
    const served = (await journal('cob.get')).filter((line) => line.params.txid?.startsWith('bounded'));
    expect(served.map((line) => line.status)).toEqual(Array(6).fill(404));
    // The adapter's own pool, as an operator sees it: its connections to the PSP, no call waiting.
    const scraped = await (await fetch(`${stack.opsUrls['pix-provider-adapter']}/metrics`)).text();
    expect(scraped).toMatch(/^psp_connections_open\{[^}]*connection="test"[^}]*\} [0-9]+$/m);
    expect(scraped).toMatch(/^psp_calls_waiting\{[^}]*connection="test"[^}]*\} 0$/m);
  });

  it('asks the PSP for one token however many calls need one, at first and after the PSP forgot it', async () => {
    const tokenRequests: string[] = [];
    const client = clientOf(pem(psp.pki.adapterClient.cert), pem(psp.pki.adapterClient.key), {
      timeoutMs: 10_000,
      onRequest: (operation, outcome) => {
        if (operation === 'token') tokenRequests.push(outcome);
      },
    });
    const reads = (prefix: string) =>
      Promise.all(Array.from({ length: 8 }, (_, i) => client.readCharge(`${prefix}${String(i).padStart(24, '0')}`)));
    // Eight calls at once on a new client: one token request, which all eight wait for.
    expect(await reads('onetoken')).toEqual(Array(8).fill(null));
    expect(tokenRequests).toEqual(['success']);
    // A PSP restarted knows no token: eight calls refused 401 together renew it once.
    for (const proc of stack.simulatorProcesses()) await stack.stopProcess(proc);
    await stack.startPspSimulator();
    expect(await reads('renewed')).toEqual(Array(8).fill(null));
    expect(tokenRequests).toEqual(['success', 'success']);
    const served = (await journal('cob.get')).filter((line) => line.params.txid?.startsWith('renewed'));
    expect(served.map((line) => line.status)).toEqual(Array(8).fill(404));
  });

  it('refuses a client without a certificate signed by the PSP CA', async () => {
    // The platform's own credentials, presented with another CA's certificate.
    const stranger = clientOf(strangers.stranger.cert, strangers.stranger.key);
    await expect(
      stranger.createCharge({ txid: 'a'.repeat(32), amountCents: 500, expiresInSeconds: 60, description: null }),
    ).rejects.toThrow();
  });

  it("acts the sandbox routes through a back office only: a test PSP without one (a PSP's homologation) answers 503", async () => {
    for (const proc of stack.processesOf('pix-provider-adapter')) await stack.stopProcess(proc);
    // The test connection as to a PSP's homologation environment: the same PSP, no back office.
    await stack.startService(
      'pix-provider-adapter',
      { PSP_BACKOFFICE_URL: undefined },
      stack.ports.ops['pix-provider-adapter'],
    );
    const client = await paymentsClient(stack);
    const payment = await client.create(9.99);
    for (const base of ['/api-public/sandbox/payments', '/public-api/v1/sandbox/payments']) {
      for (const action of ['pay', 'review', 'clear', 'reject']) {
        const res = await api(stack.gatewayUrl, 'POST', `${base}/${payment.id}/${action}`, {
          token: client.store.token,
        });
        expect([action, res.status]).toEqual([action, 503]);
        const anonymous = await api(stack.gatewayUrl, 'POST', `${base}/${payment.id}/${action}`);
        expect([action, anonymous.status]).toEqual([action, 401]);
      }
    }
    expect((await client.get(payment.id)).status).toBe('pending');
  });
});
