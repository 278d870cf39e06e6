import { api } from '../support/api';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { metric } from '../webhooks/helpers';

const SECRET = 'sandbox-callback-secret-of-this-test';

/**
 * The sandbox mode's callback endpoint (a PSP simulated by hand, with the shared secret) takes the
 * path a real PSP's callbacks take: each Pix told is read back, here from the sandbox PSP's books,
 * and only the PSP's own account of it is applied.
 */
describe("the sandbox's callback endpoint", () => {
  let stack: PrivateStack;
  beforeAll(async () => {
    // Reconciliation far off: only a callback can tell of the Pix here.
    stack = await startPrivateStack({ env: { PSP_CALLBACK_SECRET: SECRET, RECONCILE_INTERVAL: '1h' } });
  });
  afterAll(() => stack.stop());

  function callBack(pix: unknown, secret = SECRET) {
    return fetch(`http://127.0.0.1:${stack.ports.adapterHttp}/psp/callbacks/pix`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-psp-callback-secret': secret },
      body: JSON.stringify({ pix: [pix] }),
    });
  }
  const refusals = (reason: string) =>
    metric(stack.opsUrls['pix-provider-adapter'], 'psp_callbacks_refused_total', `reason="${reason}"`);

  it('applies a Pix told by hand as the sandbox PSP holds it, once, and nothing it does not hold', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(42);
    const txid = payment.id.replace(/-/g, '');
    // The sandbox PSP receives the Pix and loses its callback.
    const paid = await api<{ endToEndId: string }>(
      stack.gatewayUrl,
      'POST',
      `/public-api/v1/sandbox/payments/${payment.id}/pay`,
      { token: client.store.token, body: { dropCallback: true } },
    );
    expect(paid.status).toBe(200);
    const told = { endToEndId: paid.body.endToEndId, txid, valor: '42.00', horario: new Date().toISOString() };

    expect((await callBack(told, 'not-the-secret-of-this-test')).status).toBe(401);
    expect((await callBack({ ...told, valor: '4.20' })).status).toBe(200);
    expect((await callBack({ ...told, endToEndId: `E${'7'.repeat(31)}` })).status).toBe(200);
    expect(await refusals('readback_mismatch')).toBe(1);
    expect(await refusals('readback_not_found')).toBe(1);
    expect((await client.get(payment.id)).status).toBe('pending');

    expect((await callBack(told)).status).toBe(200);
    await client.waitForStatus(payment.id, 'approved');
    expect((await callBack(told)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await statusChangedEvents(stack, payment.id, 1)).toHaveLength(1);
  });
});
