import { Webhook } from 'standardwebhooks';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The README walkthrough, end to end through all four services: create a store, create a payment,
 * open its payment page, pay it through the public sandbox route, see it approved and both webhooks
 * arrive, signed.
 */
describe('walkthrough: a payment from creation to approval', () => {
  const stack = sharedStack();
  const receiver = new WebhookReceiver();
  let webhookUrl: string;
  let store: StoreCredentials;

  beforeAll(async () => {
    webhookUrl = await receiver.start();
    store = await createStore(stack, 'Walkthrough store');
  });
  afterAll(() => receiver.stop());

  it('creates, reads, lists, pays and notifies', async () => {
    expect(store.token).toMatch(/^pxt_test_[A-Za-z0-9_-]{43}$/);
    expect(store.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);

    const created = await api<Record<string, unknown>>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 25.5, email: 'cliente@example.com', observation: 'Pedido 42', webhookUrl },
    });
    expect(created.status).toBe(200);
    const payment = created.body;
    expect(payment).toMatchObject({
      status: 'pending',
      amount: 25.5,
      storeId: store.storeId,
      email: 'cliente@example.com',
      observation: 'Pedido 42',
      webhookUrl,
      isPublic: true,
    });
    expect(payment.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(payment.qrCopyPaste).toMatch(/^000201/);
    expect(String(payment.qrCopyPaste)).toContain('br.gov.bcb.pix');
    expect(payment.qrCodeUrl).toBe(`${stack.gatewayUrl}/public-api/v1/qrcodes/${String(payment.id)}.png`);

    const id = String(payment.id);
    for (const path of [`/api-public/payments/${id}`, `/public-api/v1/payments/${id}`]) {
      const read = await api(stack.gatewayUrl, 'GET', path, { token: store.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(payment);
    }

    const list = await api<{ items: unknown[]; page: number; limit: number; total: number }>(
      stack.gatewayUrl,
      'GET',
      '/api-public/payments',
      { token: store.token },
    );
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [payment], page: 1, limit: 50, total: 1 });

    const qr = await fetch(String(payment.qrCodeUrl));
    expect(qr.status).toBe(200);
    expect(qr.headers.get('content-type')).toBe('image/png');

    // The customer's page: the store, the amount, no e-mail or observation.
    const page = await fetch(`${stack.gatewayUrl}/pay/${id}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Walkthrough store');
    expect(html).toContain('R$ 25,50');
    expect(html).not.toContain('cliente@example.com');
    expect(html).not.toContain('Pedido 42');

    const paid = await api<Record<string, unknown>>(
      stack.gatewayUrl,
      'POST',
      `/public-api/v1/sandbox/payments/${id}/pay`,
      { token: store.token },
    );
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ paymentId: id, amount: 25.5 });
    expect(paid.body.endToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);

    const approved = await eventually(
      () =>
        api<Record<string, unknown>>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, { token: store.token }),
      (res) => res.body.status === 'approved',
    );
    expect(approved.body).toEqual({ ...payment, status: 'approved' });

    await eventually(
      async () => receiver.events(id).length,
      (n) => n >= 2,
    );
    const [createdHook, changedHook] = [
      receiver.events(id, 'payment.created')[0],
      receiver.events(id, 'payment.status_changed')[0],
    ];
    // The spec's body exactly: what the API adds to a payment (isPublic, refundedAmount, expiresAt) is not in it.
    const { isPublic: _notInEvents, refundedAmount: _apiOnly, expiresAt: _alsoApiOnly, ...eventData } = payment;
    expect(createdHook?.json).toEqual({ event: 'payment.created', ...eventData });
    // As in the spec's tables, the event name leads the body.
    expect(Object.keys(createdHook?.json ?? {})[0]).toBe('event');
    expect(changedHook?.json).toEqual({
      event: 'payment.status_changed',
      ...eventData,
      status: 'approved',
      previousStatus: 'pending',
    });
    const verifier = new Webhook(store.webhookSecret);
    for (const hook of [createdHook, changedHook]) {
      expect(hook?.method).toBe('POST');
      expect(hook?.headers['content-type']).toBe('application/json');
      expect(() =>
        verifier.verify(hook?.body ?? '', {
          'webhook-id': String(hook?.headers['webhook-id']),
          'webhook-timestamp': String(hook?.headers['webhook-timestamp']),
          'webhook-signature': String(hook?.headers['webhook-signature']),
        }),
      ).not.toThrow();
    }
  });
});
