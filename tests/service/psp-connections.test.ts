import fs from 'node:fs';
import path from 'node:path';
import { txidFor } from '@pix/contracts';
import { api, eventually } from '../support/api';
import { paymentsClient, type PaymentBody } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/** A client secret no PSP knows, that no log may ever show. */
const WRONG_SECRET = 'marker-wrong-live-secret-5b1e0c';

/**
 * One PSP connection per mode (docs/decisions/psp-connections.md): a live connection that does not
 * work (a secret its PSP refuses, a certificate file that is not there) leaves the adapter up and
 * serving test mode, reports that connection unready with the reason and no secret, and delays
 * live work rather than losing it: once the connection is mended, the live charge is made.
 */
describe('PSP connections per mode', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({ livePsp: true });
  });
  afterAll(() => stack.stop());

  /** The adapter again, with these settings over the stack's: its metrics' address. */
  async function restartAdapter(env: NodeJS.ProcessEnv): Promise<string> {
    for (const proc of stack.processesOf('pix-provider-adapter')) await stack.stopProcess(proc);
    const opsPort = stack.ports.ops['pix-provider-adapter'];
    await stack.startService('pix-provider-adapter', env, opsPort);
    return `http://127.0.0.1:${opsPort}`;
  }

  /** psp_connection_ready of a connection, once it has been checked (the check runs as the adapter starts). */
  const ready = (opsUrl: string, connection: 'test' | 'live') =>
    eventually(
      async () => {
        const metrics = (await api<string>(opsUrl, 'GET', '/metrics')).body;
        const found = new RegExp(`^psp_connection_ready\\{[^}]*connection="${connection}"[^}]*\\} (\\d)$`, 'm');
        return found.exec(metrics)?.[1];
      },
      (value) => value !== undefined,
    ).then((value) => value === '1');

  const adapterLog = () => fs.readFileSync(path.join(stack.dir, 'logs', 'pix-provider-adapter.log'), 'utf8');

  it('a live secret the PSP refuses: live unready with the reason, test served, the live charge made once mended', async () => {
    const opsUrl = await restartAdapter({ LIVE_PSP_CLIENT_SECRET: WRONG_SECRET });
    expect(await ready(opsUrl, 'test')).toBe(true);
    expect(await ready(opsUrl, 'live')).toBe(false);
    const unready = adapterLog()
      .split('\n')
      .filter((line) => line.includes('PSP connection unready'))
      .map((line) => JSON.parse(line) as { connection: string; reason: string });
    expect(unready).toEqual([
      expect.objectContaining({ connection: 'live', reason: expect.stringMatching(/token .*HTTP 401/) }),
    ]);

    // Test mode is served: created, paid at the test PSP, approved.
    const client = await paymentsClient(stack);
    const testPayment = await client.create(12);
    expect(testPayment.qrCopyPaste).toEqual(expect.any(String));
    await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${testPayment.id}/pay`, {
      token: client.store.token,
    });
    await client.waitForStatus(testPayment.id, 'approved');

    // A live payment is accepted; its charge waits for the live connection.
    const created = await api<PaymentBody>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: client.store.liveToken,
      body: { amount: 13 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ livemode: true, status: 'pending', qrCopyPaste: null });

    await restartAdapter({});
    const live = await eventually(
      async () =>
        (
          await api<PaymentBody>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${created.body.id}`, {
            token: client.store.liveToken,
          })
        ).body,
      (p) => p.qrCopyPaste !== null,
      90_000,
      500,
    );
    expect(live.status).toBe('pending');
    // Charged at the live PSP, so its payer route pays it.
    const paid = await fetch(`${stack.livePsp!.backOfficeUrl}/cob/${txidFor(live.id)}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);

    for (const file of fs.readdirSync(path.join(stack.dir, 'logs'))) {
      expect([file, fs.readFileSync(path.join(stack.dir, 'logs', file), 'utf8').includes(WRONG_SECRET)]).toEqual([
        file,
        false,
      ]);
    }
  });

  it('a live certificate file that is not there: that connection is reported unopened, the adapter serves test', async () => {
    const missing = path.join(stack.dir, 'secrets', 'no-such-client.crt');
    const opsUrl = await restartAdapter({ LIVE_PSP_TLS_CERT_FILE: missing });
    expect(await ready(opsUrl, 'test')).toBe(true);
    expect(await ready(opsUrl, 'live')).toBe(false);
    expect(adapterLog()).toContain(`the live connection's file ${missing} cannot be read (ENOENT)`);
    const client = await paymentsClient(stack);
    expect((await client.create(14)).qrCopyPaste).toEqual(expect.any(String));
  });
});
