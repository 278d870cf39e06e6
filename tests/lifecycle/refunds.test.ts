import { randomUUID } from 'node:crypto';
import { ErrorMessages, PlatformRefundReasons, SandboxMessages } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { withPspDb } from '../support/db';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { verify } from '../webhooks/helpers';

type Json = Record<string, unknown>;

/**
 * Money going back, through the public API on the shared stack as a merchant meets it: refunds of
 * an approved payment (settled by the sandbox PSP through its callback, as a real PSP's), a Pix that
 * lands after the payment can no longer take it, a cancel, and the merchant's expiresIn. Every
 * webhook is received by an endpoint of the test's and checked against the store's secret.
 */
describe('refunds, cancels and expiry through the public API', () => {
  const stack = sharedStack();
  const receiver = new WebhookReceiver();
  let store: StoreCredentials;
  let webhookUrl: string;
  /** Created first and left pending: it expires 60 s later, while the other tests run. */
  let expiring: Json;

  const call = <T = Json>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    api<T>(stack.gatewayUrl, method, `/public-api/v1${path}`, { token: store.token, body, headers });

  async function paidPayment(amount: number): Promise<Json & { id: string }> {
    const created = await call<Json & { id: string }>('POST', '/payments', { amount, webhookUrl });
    expect(created.status).toBe(200);
    expect((await call('POST', `/sandbox/payments/${created.body.id}/pay`)).status).toBe(200);
    await eventually(
      async () => (await call(`GET`, `/payments/${created.body.id}`)).body,
      (p) => p.status === 'approved',
    );
    return created.body;
  }

  const refundsOf = async (paymentId: string) =>
    (await call<{ items: Json[] }>('GET', `/payments/${paymentId}/refunds`)).body.items;

  const hooksOf = (paymentId: string) => receiver.events(paymentId).map((h) => h.json.event);

  beforeAll(async () => {
    webhookUrl = await receiver.start();
    store = await createStore(stack, 'Refunds store');
    const created = await call('POST', '/payments', { amount: 12, webhookUrl, expiresIn: 60 });
    expect(created.status).toBe(200);
    expiring = created.body;
  });
  afterAll(() => receiver.stop());

  it('a partial refund: pending at once, succeeded by the PSP, refundedAmount its sum, webhooks in order', async () => {
    const payment = await paidPayment(50);
    const asked = await call('POST', `/payments/${payment.id}/refunds`, { amount: 20.5, reason: 'Item devolvido' });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({
      id: expect.any(String),
      paymentId: payment.id,
      endToEndId: expect.stringMatching(/^E/),
      amount: 20.5,
      status: 'pending',
      reason: 'Item devolvido',
      origin: 'merchant',
      nature: null,
      // A test token's refund: test mode.
      livemode: false,
      createdAt: expect.any(String),
      settledAt: null,
      failureReason: null,
    });
    const refund = await eventually(
      async () => (await call(`GET`, `/payments/${payment.id}/refunds/${String(asked.body.id)}`)).body,
      (r) => r.status === 'succeeded',
    );
    expect(refund.settledAt).toEqual(expect.any(String));
    const after = (await call('GET', `/payments/${payment.id}`)).body;
    expect(after).toMatchObject({ status: 'approved', refundedAmount: 20.5, amount: 50 });
    // The list carries refundedAmount too.
    const listed = (await call<{ items: Json[] }>('GET', '/payments?status=approved&limit=200')).body.items;
    expect(listed.find((p) => p.id === payment.id)).toMatchObject({ refundedAmount: 20.5 });

    const hooks = await eventually(
      async () => receiver.events(payment.id),
      (found) => found.length >= 4,
    );
    expect(hooks.map((h) => h.json.event)).toEqual([
      'payment.created',
      'payment.status_changed',
      'refund.created',
      'refund.succeeded',
    ]);
    for (const hook of hooks) verify(hook, store.webhookSecret);
    expect(hooks[3]?.json).toEqual({ event: 'refund.succeeded', ...refund, storeId: store.storeId });
    // The payment events keep the spec's body: no refundedAmount, no expiresAt.
    expect(Object.keys(hooks[1]?.json ?? {})).not.toContain('refundedAmount');
    expect(Object.keys(hooks[1]?.json ?? {})).not.toContain('expiresAt');

    // The Events API lists and filters them like the payment's own.
    const events = await call<{ items: Json[] }>('GET', `/events?paymentId=${payment.id}&type=refund.succeeded`);
    expect(events.body.items).toEqual([
      expect.objectContaining({ type: 'refund.succeeded', paymentId: payment.id, status: 'delivered' }),
    ]);
  });

  it('refunds what is left by default, then refuses more with what is left in the message', async () => {
    const payment = await paidPayment(30);
    expect((await call('POST', `/payments/${payment.id}/refunds`, { amount: 10 })).status).toBe(200);
    const tooMuch = await call('POST', `/payments/${payment.id}/refunds`, { amount: 20.01 });
    expect(tooMuch).toMatchObject({
      status: 400,
      body: { statusCode: 400, message: ErrorMessages.refundAboveLeft(2000) },
    });
    const rest = await call('POST', `/payments/${payment.id}/refunds`);
    expect(rest.body).toMatchObject({ amount: 20, status: 'pending' });
    const none = await call('POST', `/payments/${payment.id}/refunds`, {});
    expect(none).toMatchObject({ status: 400, body: { message: ErrorMessages.refundAboveLeft(0) } });
    await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 30,
    );
    expect((await refundsOf(payment.id)).map((r) => r.amount)).toEqual([20, 10]);
  });

  it('answers bad input with 400, a payment not approved with 409, another store with 404, and changes nothing', async () => {
    const payment = await paidPayment(10);
    for (const [body, message] of [
      [{ amount: 0 }, ErrorMessages.refundAmountInvalid],
      [{ amount: -5 }, ErrorMessages.refundAmountInvalid],
      [{ amount: 1.001 }, ErrorMessages.refundAmountInvalid],
      [{ amount: '5' }, ErrorMessages.refundAmountInvalid],
      [{ reason: 'x'.repeat(141) }, ErrorMessages.refundReasonInvalid],
      [{ reason: 42 }, ErrorMessages.refundReasonInvalid],
      [[1], ErrorMessages.bodyNotObject],
    ] as const) {
      const res = await call('POST', `/payments/${payment.id}/refunds`, body);
      expect([JSON.stringify(body), res.status, res.body]).toEqual([
        JSON.stringify(body),
        400,
        { statusCode: 400, message },
      ]);
    }
    const pending = await call<{ id: string }>('POST', '/payments', { amount: 10 });
    expect(await call('POST', `/payments/${pending.body.id}/refunds`)).toMatchObject({
      status: 409,
      body: { message: ErrorMessages.refundNotApproved },
    });
    const other = await createStore(stack, 'Another store');
    const foreign = await api(stack.gatewayUrl, 'POST', `/api-public/payments/${payment.id}/refunds`, {
      token: other.token,
      body: { amount: 1 },
    });
    expect(foreign).toMatchObject({ status: 404, body: { message: ErrorMessages.paymentNotFound } });
    expect(
      await api(stack.gatewayUrl, 'GET', `/api-public/payments/${payment.id}/refunds`, { token: other.token }),
    ).toMatchObject({ status: 404 });
    expect(await call('GET', `/payments/${payment.id}/refunds/${randomUUID()}`)).toMatchObject({
      status: 404,
      body: { message: ErrorMessages.refundNotFound },
    });
    expect(await refundsOf(payment.id)).toEqual([]);
    expect((await call('GET', `/payments/${payment.id}`)).body).toMatchObject({ refundedAmount: 0 });
  });

  it('takes an Idempotency-Key per operation: the same refund again, another body 409, a create with it apart', async () => {
    const payment = await paidPayment(40);
    const key = { 'idempotency-key': `refund-${randomUUID()}` };
    const first = await call('POST', `/payments/${payment.id}/refunds`, { amount: 5 }, key);
    const again = await call('POST', `/payments/${payment.id}/refunds`, { amount: 5 }, key);
    expect(again).toMatchObject({ status: 200, body: { id: first.body.id } });
    const changed = await call('POST', `/payments/${payment.id}/refunds`, { amount: 6 }, key);
    expect(changed).toMatchObject({ status: 409, body: { message: ErrorMessages.idempotencyKeyReused } });
    // The same key on a create names a payment, not the refund.
    const created = await call('POST', '/payments', { amount: 40 }, key);
    expect(created.status).toBe(200);
    expect(created.body.id).not.toBe(first.body.id);
    expect((await refundsOf(payment.id)).map((r) => r.id)).toEqual([first.body.id]);
  });

  it('a refund the PSP does not do: failed with its motivo, refund.failed, refundedAmount unchanged', async () => {
    const payment = await paidPayment(25);
    const armed = await call('POST', `/sandbox/payments/${payment.id}/fail-next-refund`);
    expect(armed.status).toBe(200);
    const asked = await call('POST', `/payments/${payment.id}/refunds`, { amount: 5 });
    const failed = await eventually(
      async () => (await call(`GET`, `/payments/${payment.id}/refunds/${String(asked.body.id)}`)).body,
      (r) => r.status === 'failed',
    );
    expect(failed.failureReason).toBe(armed.body.failureReason);
    expect((await call('GET', `/payments/${payment.id}`)).body).toMatchObject({ refundedAmount: 0 });
    await eventually(
      async () => hooksOf(payment.id),
      (events) => events.includes('refund.failed'),
    );
    // Only the next one fails: the money is refundable again, and this one succeeds.
    const retried = await call('POST', `/payments/${payment.id}/refunds`, { amount: 25 });
    expect(retried.status).toBe(200);
    await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 25,
    );
  });

  it('a second Pix for a paid payment goes back to its payer, once, and the payment stays as it was', async () => {
    const payment = await paidPayment(15);
    const late = await call<{ endToEndId: string }>('POST', `/sandbox/payments/${payment.id}/pay`, { late: true });
    expect(late.status).toBe(200);
    const [refund] = await eventually(
      () => refundsOf(payment.id),
      (items) => items.length === 1 && items[0]?.status === 'succeeded',
    );
    expect(refund).toMatchObject({
      endToEndId: late.body.endToEndId,
      amount: 15,
      origin: 'platform',
      reason: PlatformRefundReasons.latePix,
    });
    expect((await call('GET', `/payments/${payment.id}`)).body).toMatchObject({
      status: 'approved',
      refundedAmount: 0,
    });
    await withPspDb(stack, async (db) => {
      const atPsp = await db.collection('sandbox_psp_refunds').find({ endToEndId: late.body.endToEndId }).toArray();
      expect(atPsp.map((r) => [r.requests, r.devolucao.status])).toEqual([[1, 'DEVOLVIDO']]);
    });
  });

  it('a cancel: not_approved at once with its webhook, the charge removed at the PSP, a Pix after it returned', async () => {
    const created = await call<{ id: string }>('POST', '/payments', { amount: 18, webhookUrl });
    const { id } = created.body;
    const cancelled = await call('POST', `/payments/${id}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: { id, status: 'not_approved', refundedAmount: 0 } });
    expect(await call('POST', `/payments/${id}/cancel`)).toMatchObject({
      status: 409,
      body: { message: ErrorMessages.cancelNotPending },
    });
    const hooks = await eventually(
      async () => receiver.events(id),
      (found) => found.length >= 2,
    );
    expect(hooks.map((h) => [h.json.event, h.json.previousStatus, h.json.status])).toEqual([
      ['payment.created', undefined, 'pending'],
      ['payment.status_changed', 'pending', 'not_approved'],
    ]);
    // The removal reaches the PSP right after: the charge can no longer be paid.
    const pay = await eventually(
      () => call('POST', `/sandbox/payments/${id}/pay`),
      (res) => res.status === 409,
    );
    expect(pay.body).toMatchObject({ message: SandboxMessages.chargeRemoved });
    // The customer's bank pays anyway: the Pix goes back.
    await call('POST', `/sandbox/payments/${id}/pay`, { late: true });
    const [returned] = await eventually(
      () => refundsOf(id),
      (items) => items[0]?.status === 'succeeded',
    );
    expect(returned).toMatchObject({ origin: 'platform', amount: 18 });
    expect((await call('GET', `/payments/${id}`)).body).toMatchObject({ status: 'not_approved', refundedAmount: 0 });

    const approved = await paidPayment(10);
    expect(await call('POST', `/payments/${approved.id}/cancel`)).toMatchObject({ status: 409 });
  });

  it('expiresIn: taken within its bounds and written into expiresAt; anything else is 400 with its message', async () => {
    const created = await call('POST', '/payments', { amount: 10, expiresIn: 2_592_000 });
    expect(Date.parse(String(created.body.expiresAt)) - Date.parse(String(created.body.createdAt))).toBe(2_592_000_000);
    const plain = await call('POST', '/payments', { amount: 10 });
    expect(Date.parse(String(plain.body.expiresAt)) - Date.parse(String(plain.body.createdAt))).toBe(86_400_000);
    for (const expiresIn of [10, 59, 2_592_001, 1.5, 'abc', '600', 99_999_999, true]) {
      const res = await call('POST', '/payments', { amount: 10, expiresIn });
      expect([expiresIn, res.status, res.body]).toEqual([
        expiresIn,
        400,
        { statusCode: 400, message: ErrorMessages.expiresInInvalid },
      ]);
    }
    // The spec's fields are checked first.
    expect((await call('POST', '/payments', { amount: 1, expiresIn: 1 })).body).toMatchObject({
      message: ErrorMessages.amountMin,
    });
  });

  it('at expiresAt a pending payment becomes not_approved, with its webhook', async () => {
    const id = String(expiring.id);
    expect(Date.parse(String(expiring.expiresAt)) - Date.parse(String(expiring.createdAt))).toBe(60_000);
    const expired = await eventually(
      async () => (await call('GET', `/payments/${id}`)).body,
      (p) => p.status === 'not_approved',
      90_000,
      500,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(String(expired.expiresAt)));
    await eventually(
      async () => hooksOf(id),
      (events) => events.includes('payment.status_changed'),
    );
  }, 120_000);
});
