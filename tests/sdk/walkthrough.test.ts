import {
  createClient,
  PixApiError,
  webhooks,
  WebhookVerificationError,
  type PixPaymentsClient,
  type Webhook,
} from '@pix-payments/client';
import { ErrorMessages } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver';

/**
 * The README walkthrough done through the SDK, as a merchant's code would (the built package, its
 * CommonJS entry): create payments and page through them, pay one in the sandbox, receive and
 * verify both webhooks, list the events, redeliver one and receive it again under the same id.
 */
describe('the README walkthrough through @pix-payments/client', () => {
  const stack = sharedStack();
  const receiver = new WebhookReceiver();
  let webhookUrl: string;
  let store: StoreCredentials;
  let client: PixPaymentsClient;

  beforeAll(async () => {
    webhookUrl = await receiver.start();
    store = await createStore(stack, 'SDK store');
    client = createClient({ baseUrl: stack.gatewayUrl, token: store.token });
  });
  afterAll(() => receiver.stop());

  const verified = (hook: ReceivedWebhook | undefined): Webhook =>
    webhooks.verify(hook?.body ?? '', hook?.headers ?? {}, store.webhookSecret);

  it('creates, pages through, pays, verifies both webhooks, lists events and redelivers one', async () => {
    const payment = await client.payments.create({
      amount: 25.5,
      email: 'cliente@example.com',
      webhookUrl,
    });
    expect(payment).toMatchObject({ status: 'pending', amount: 25.5, storeId: store.storeId, isPublic: true });
    expect(await client.payments.get(payment.id)).toEqual(payment);
    const others = [await client.payments.create({ amount: 10 }), await client.payments.create({ amount: 11 })];

    // Every payment, two a page: three requests' worth of pages, newest first.
    const all = [];
    for await (const p of client.payments.listAll({ limit: 2 })) all.push(p.id);
    expect(all).toEqual([others[1]!.id, others[0]!.id, payment.id]);
    expect((await client.payments.list({ status: 'pending', limit: 1 })).total).toBe(3);

    const paid = await client.sandbox.pay(payment.id);
    expect(paid).toMatchObject({ paymentId: payment.id, amount: 25.5 });
    await eventually(
      async () => client.payments.get(payment.id),
      (p) => p.status === 'approved',
    );

    const [createdHook] = await eventually(
      async () => receiver.events(payment.id, 'payment.created'),
      (hooks) => hooks.length === 1,
    );
    const [changedHook] = await eventually(
      async () => receiver.events(payment.id, 'payment.status_changed'),
      (hooks) => hooks.length === 1,
    );
    const created = verified(createdHook);
    const changed = verified(changedHook);
    expect(created).toMatchObject({ event: 'payment.created', id: payment.id, status: 'pending' });
    if (changed.event !== 'payment.status_changed') throw new Error(`unexpected ${changed.event}`);
    expect(changed).toMatchObject({ id: payment.id, status: 'approved', previousStatus: 'pending' });
    // Anything else is refused: another secret, a changed body.
    expect(() =>
      webhooks.verify(
        createdHook!.body,
        createdHook!.headers,
        'whsec_' + Buffer.from('x'.repeat(32)).toString('base64'),
      ),
    ).toThrow(WebhookVerificationError);
    expect(() => verified({ ...createdHook!, body: createdHook!.body.replace('25.5', '2.55') })).toThrow(
      WebhookVerificationError,
    );

    const events = await eventually(
      () => client.events.list({ paymentId: payment.id }),
      (list) => list.total === 2 && list.items.every((e) => e.status === 'delivered'),
    );
    expect(events.items.map((e) => [e.type, e.id])).toEqual([
      ['payment.status_changed', changedHook!.headers['webhook-id']],
      ['payment.created', createdHook!.headers['webhook-id']],
    ]);
    expect(events.items[1]!.body).toEqual(created);
    const allEvents = [];
    for await (const e of client.events.listAll({ type: 'payment.created', limit: 1 })) allEvents.push(e.id);
    expect(allEvents).toEqual([createdHook!.headers['webhook-id']]);

    const eventId = String(createdHook!.headers['webhook-id']);
    expect(await client.events.redeliver(eventId)).toEqual({ id: eventId, status: 'pending', run: 2 });
    const again = await eventually(
      async () => receiver.events(payment.id, 'payment.created'),
      (hooks) => hooks.length === 2,
    );
    expect(again[1]!.headers['webhook-id']).toBe(eventId);
    expect(verified(again[1])).toEqual(created);
    const detail = await eventually(
      () => client.events.get(eventId),
      (e) => e.status === 'delivered' && e.attempts.length === 2,
    );
    expect(detail.attemptCount).toBe(2);
    expect(detail.attempts.map((a) => [a.run, a.attempt, a.outcome, a.statusCode])).toEqual([
      [1, 1, 'success', 200],
      [2, 1, 'success', 200],
    ]);
  });

  it('refunds in parts with a key of its own, verifies the refund webhooks, cancels a pending payment', async () => {
    const payment = await client.payments.create({ amount: 40, webhookUrl });
    await client.sandbox.pay(payment.id);
    await eventually(
      () => client.payments.get(payment.id),
      (p) => p.status === 'approved',
    );
    const refund = await client.refunds.create(payment.id, { amount: 15, reason: 'Troca' }, { idempotencyKey: 'rf-1' });
    expect(refund).toMatchObject({ paymentId: payment.id, amount: 15, status: 'pending', origin: 'merchant' });
    // The same key again is the same refund, not a second one.
    expect(
      await client.refunds.create(payment.id, { amount: 15, reason: 'Troca' }, { idempotencyKey: 'rf-1' }),
    ).toEqual(refund);
    const rest = await client.refunds.create(payment.id);
    expect(rest.amount).toBe(25);
    await eventually(
      () => client.payments.get(payment.id),
      (p) => p.refundedAmount === 40,
    );
    expect((await client.refunds.list(payment.id)).items.map((r) => [r.id, r.status])).toEqual([
      [rest.id, 'succeeded'],
      [refund.id, 'succeeded'],
    ]);
    expect(await client.refunds.get(payment.id, refund.id)).toMatchObject({ status: 'succeeded' });
    const tooMuch = await client.refunds.create(payment.id, { amount: 0.01 }).catch((err: unknown) => err);
    expect(tooMuch).toMatchObject({ statusCode: 400, message: ErrorMessages.refundAboveLeft(0) });

    const hooks = await eventually(
      async () => receiver.events(payment.id).filter((h) => String(h.json.event).startsWith('refund.')),
      (found) => found.length === 4,
    );
    const succeeded = hooks.map(verified).filter((e) => e.event === 'refund.succeeded');
    expect(succeeded.map((e) => e.event === 'refund.succeeded' && e.amount).sort()).toEqual([15, 25]);

    const pending = await client.payments.create({ amount: 12 });
    expect(await client.payments.cancel(pending.id)).toMatchObject({ id: pending.id, status: 'not_approved' });
    await expect(client.payments.cancel(pending.id)).rejects.toMatchObject({
      statusCode: 409,
      message: ErrorMessages.cancelNotPending,
    });
  });

  it('throws typed errors: statusCode and the API message', async () => {
    const refused = await client.payments.create({ amount: 1 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(PixApiError);
    expect(refused).toMatchObject({ statusCode: 400, message: ErrorMessages.amountMin });
    const missing = await client.events.get(`evt_${'0'.repeat(32)}`).catch((err: unknown) => err);
    expect(missing).toMatchObject({ statusCode: 404, message: ErrorMessages.eventNotFound });
    const stranger = createClient({ baseUrl: stack.gatewayUrl, token: 'pxt_not-a-token' });
    await expect(stranger.payments.list()).rejects.toMatchObject({
      statusCode: 401,
      message: ErrorMessages.tokenInvalid,
    });
  });
});
