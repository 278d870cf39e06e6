import { randomUUID } from 'node:crypto';
import { ErrorMessages, TokenPrefixes, txidFor } from '@pix/contracts';
import { adminFails, createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { contractClient, type ContractClient } from '../support/contract';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { verify } from '../webhooks/helpers';

interface Body {
  id: string;
  livemode: boolean;
  status: string;
}
interface ListBody {
  items: Body[];
  total: number;
}
interface EventListBody {
  items: { id: string; paymentId: string; livemode: boolean; body: { livemode: boolean } }[];
}

/**
 * Test mode and live mode in one store (docs/decisions/livemode.md), through the public API with
 * every answer checked against the OpenAPI document: each token sees only its own mode's payments,
 * refunds and events, every body says its mode, the sandbox routes answer a test token only, and a
 * live payment's webhooks are signed with the live secret. Each mode has its own PSP connection: the
 * test one's PSP is the stack's simulator, the live one's a second simulator standing in for a real
 * PSP (docs/decisions/psp-connections.md), where only its payer route pays a live payment.
 */
describe('test mode and live mode', () => {
  const stack = sharedStack();
  const receiver = new WebhookReceiver();
  let call: ContractClient;
  let url: string;
  let store: StoreCredentials;
  let test: Body;
  let live: Body;

  async function create(token: string, headers: Record<string, string> = {}): Promise<Body> {
    const res = await call<Body>('POST', '/public-api/v1/payments', {
      token,
      body: { amount: 15, webhookUrl: url },
      headers,
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  const status = (token: string, id: string) =>
    eventually(
      async () => (await call<Body>('GET', `/public-api/v1/payments/${id}`, { token })).body.status,
      (s) => s === 'approved',
    );

  beforeAll(async () => {
    call = await contractClient(stack.gatewayUrl);
    url = await receiver.start();
    store = await createStore(stack, 'Two modes store');
    test = await create(store.token);
    live = await create(store.liveToken);
  });
  afterAll(() => receiver.stop());

  it('gives a new store a token and a webhook secret of each mode, the test ones where they always were', () => {
    expect(store.token.startsWith(TokenPrefixes.test)).toBe(true);
    expect(store.liveToken.startsWith(TokenPrefixes.live)).toBe(true);
    expect(store.webhookSecret).toMatch(/^whsec_/);
    expect(store.liveWebhookSecret).toMatch(/^whsec_/);
    expect(store.liveWebhookSecret).not.toBe(store.webhookSecret);
  });

  it("says each payment's mode, the token's that created it", () => {
    expect(test).toMatchObject({ livemode: false, status: 'pending' });
    expect(live).toMatchObject({ livemode: true, status: 'pending' });
  });

  it("answers another mode's payment 404, as if it did not exist, and its own with its mode", async () => {
    for (const [token, own, other] of [
      [store.token, test, live],
      [store.liveToken, live, test],
    ] as const) {
      const read = await call<Body>('GET', `/public-api/v1/payments/${own.id}`, { token });
      expect(read.body).toMatchObject({ id: own.id, livemode: own.livemode });
      for (const path of [`/api-public/payments/${other.id}`, `/public-api/v1/payments/${other.id}/refunds`]) {
        const crossed = await call('GET', path, { token });
        expect({ path, status: crossed.status, body: crossed.body }).toEqual({
          path,
          status: 404,
          body: { statusCode: 404, message: ErrorMessages.paymentNotFound },
        });
      }
      const cancel = await call('POST', `/public-api/v1/payments/${other.id}/cancel`, { token });
      expect(cancel.status).toBe(404);
    }
  });

  it("lists each mode's payments only, with its own total", async () => {
    const testList = await call<ListBody>('GET', '/public-api/v1/payments?limit=200', { token: store.token });
    const liveList = await call<ListBody>('GET', '/api-public/payments?status=pending', { token: store.liveToken });
    expect(testList.body.items.map((p) => p.id)).toContain(test.id);
    expect(testList.body.items.map((p) => p.id)).not.toContain(live.id);
    expect(testList.body.items.every((p) => p.livemode === false)).toBe(true);
    expect(liveList.body).toMatchObject({ total: 1, items: [{ id: live.id, livemode: true }] });
  });

  it('answers the sandbox routes to a test token only: a live token, or a test token on a live payment, is 404', async () => {
    const liveToken = await call('POST', `/public-api/v1/sandbox/payments/${live.id}/pay`, { token: store.liveToken });
    expect(liveToken).toMatchObject({ status: 404, body: { message: ErrorMessages.paymentNotFound } });
    const testOnLive = await call('POST', `/api-public/sandbox/payments/${live.id}/review`, { token: store.token });
    expect(testOnLive.status).toBe(404);
    const liveOnTest = await call('POST', `/public-api/v1/sandbox/payments/${test.id}/pay`, { token: store.liveToken });
    expect(liveOnTest.status).toBe(404);
  });

  it('signs each mode’s webhooks with that mode’s secret, and says the mode in every body', async () => {
    const [testHook, liveHook] = await Promise.all(
      [test, live].map((p) =>
        eventually(
          async () => receiver.events(p.id, 'payment.created'),
          (hooks) => hooks.length > 0,
        ).then((hooks) => hooks[0]),
      ),
    );
    expect(verify(testHook, store.webhookSecret)).toMatchObject({ id: test.id, livemode: false });
    expect(verify(liveHook, store.liveWebhookSecret)).toMatchObject({ id: live.id, livemode: true });
    expect(() => verify(liveHook, store.webhookSecret)).toThrow();
    expect(() => verify(testHook, store.liveWebhookSecret)).toThrow();
  });

  it("charges each mode at its own PSP: the test PSP (and the operator's sandbox CLI) cannot pay a live payment", async () => {
    // The live charge is at the live PSP: the test simulator, which the sandbox commands drive, has none.
    const refused = await adminFails(stack, 'sandbox', 'pay', live.id);
    expect(refused.stderr).toContain(ErrorMessages.paymentNotFound);
    // The payer's bank pays it: here, the stand-in live PSP's payer route.
    const paid = await fetch(`${stack.livePsp!.backOfficeUrl}/cob/${txidFor(live.id)}/pay`, { method: 'POST' });
    expect(paid.status).toBe(200);
    await call('POST', `/public-api/v1/sandbox/payments/${test.id}/pay`, { token: store.token });
    await Promise.all([status(store.token, test.id), status(store.liveToken, live.id)]);
    // And the test payment's charge is not at the live PSP either.
    const crossed = await fetch(`${stack.livePsp!.backOfficeUrl}/cob/${txidFor(test.id)}/pay`, { method: 'POST' });
    expect(crossed.status).toBe(404);
  });

  it("refunds in each mode with that mode's token only, every refund and its webhook saying the mode", async () => {
    const crossed = await call('POST', `/public-api/v1/payments/${live.id}/refunds`, {
      token: store.token,
      body: { amount: 5 },
    });
    expect(crossed.status).toBe(404);
    for (const [token, payment] of [
      [store.token, test],
      [store.liveToken, live],
    ] as const) {
      const refund = await call<{ id: string; livemode: boolean }>(
        'POST',
        `/public-api/v1/payments/${payment.id}/refunds`,
        { token, body: { amount: 5 } },
      );
      expect(refund.body).toMatchObject({ livemode: payment.livemode });
      const read = await call('GET', `/public-api/v1/payments/${payment.id}/refunds/${refund.body.id}`, { token });
      expect(read.body).toMatchObject({ id: refund.body.id, livemode: payment.livemode });
      const [hook] = await eventually(
        async () => receiver.events(payment.id, 'refund.created'),
        (hooks) => hooks.length > 0,
      );
      expect(hook?.json).toMatchObject({ paymentId: payment.id, livemode: payment.livemode });
    }
  });

  it("shows each token its own mode's events only", async () => {
    const events = (token: string) =>
      eventually(
        () => call<EventListBody>('GET', '/public-api/v1/events?limit=100', { token }),
        (res) => res.body.items.length > 0,
      );
    const [testEvents, liveEvents] = await Promise.all([events(store.token), events(store.liveToken)]);
    expect(testEvents.body.items.every((e) => !e.livemode && !e.body.livemode && e.paymentId !== live.id)).toBe(true);
    expect(liveEvents.body.items.every((e) => e.livemode && e.body.livemode && e.paymentId === live.id)).toBe(true);
    const crossed = await call('GET', `/public-api/v1/events/${liveEvents.body.items[0]!.id}`, { token: store.token });
    expect(crossed).toMatchObject({ status: 404, body: { message: ErrorMessages.eventNotFound } });
  });

  it('keeps Idempotency-Keys per mode: one key names a payment in each', async () => {
    const key = { 'idempotency-key': randomUUID() };
    const [inTest, inLive] = [await create(store.token, key), await create(store.liveToken, key)];
    expect(inLive.id).not.toBe(inTest.id);
    expect([inTest.livemode, inLive.livemode]).toEqual([false, true]);
    expect((await create(store.liveToken, key)).id).toBe(inLive.id);
  });
});
