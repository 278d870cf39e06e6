import { ErrorMessages } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { contractClient, type ContractClient } from '../support/contract';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const EVENT_FORMS = ['/api-public/events', '/public-api/v1/events'] as const;

interface EventBody {
  id: string;
  type: string;
  paymentId: string;
  livemode: boolean;
  createdAt: string;
  body: Record<string, unknown>;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  attempts?: Record<string, unknown>[];
}
interface EventListBody {
  items: EventBody[];
  page: number;
  limit: number;
  total: number;
}

/**
 * The Events API on both path forms, every answer checked against the OpenAPI document: a store
 * sees its own events as they were delivered, with their attempts, and never another store's.
 */
describe('the Events API', () => {
  const stack = sharedStack();
  const receiver = new WebhookReceiver();
  let call: ContractClient;
  let url: string;
  let store: StoreCredentials;
  let other: StoreCredentials;
  let paymentId: string;
  let created: EventBody;

  beforeAll(async () => {
    call = await contractClient(stack.gatewayUrl);
    url = await receiver.start();
    // An endpoint that fails, for a delivery that stays pending (retried 5 s later).
    receiver.respond = (hook) => (hook.path.includes('fail') ? 500 : 200);
    store = await createStore(stack, 'Events store');
    other = await createStore(stack, 'Other events store');
    const payment = await call<{ id: string }>('POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 12.34, webhookUrl: url },
    });
    paymentId = payment.body.id;
    const list = await eventually(
      () => call<EventListBody>('GET', `/public-api/v1/events?paymentId=${paymentId}`, { token: store.token }),
      (res) => res.body.items?.[0]?.status === 'delivered',
    );
    created = list.body.items[0]!;
  });
  afterAll(() => receiver.stop());

  it('lists the store’s events on both path forms, each with the body exactly as delivered', async () => {
    const [hook] = receiver.events(paymentId);
    expect(created).toEqual({
      id: hook?.headers['webhook-id'],
      type: 'payment.created',
      paymentId,
      livemode: false,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      body: hook?.json,
      status: 'delivered',
      attemptCount: 1,
      nextAttemptAt: null,
    });
    expect(JSON.stringify(created.body)).toBe(hook?.body);
    for (const base of EVENT_FORMS) {
      const res = await call<EventListBody>('GET', base, { token: store.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ items: [created], page: 1, limit: 50, total: 1 });
    }
  });

  it('filters by type and by payment, and pages', async () => {
    const second = await call<{ id: string }>('POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 7, webhookUrl: url },
    });
    await eventually(
      () => call<EventListBody>('GET', '/public-api/v1/events', { token: store.token }),
      (res) => res.body.total === 2,
    );
    const firstPage = await call<EventListBody>('GET', '/public-api/v1/events?limit=1', { token: store.token });
    const secondPage = await call<EventListBody>('GET', '/api-public/events?limit=1&page=2', { token: store.token });
    // Newest first.
    expect(firstPage.body.items.map((e) => e.paymentId)).toEqual([second.body.id]);
    expect(secondPage.body).toMatchObject({ items: [created], page: 2, limit: 1, total: 2 });

    const byPayment = await call<EventListBody>('GET', `/public-api/v1/events?paymentId=${paymentId}`, {
      token: store.token,
    });
    expect(byPayment.body.items).toEqual([created]);
    const changed = await call<EventListBody>('GET', '/public-api/v1/events?type=payment.status_changed', {
      token: store.token,
    });
    expect(changed.body).toEqual({ items: [], page: 1, limit: 50, total: 0 });
    const createdOnly = await call<EventListBody>('GET', '/public-api/v1/events?type=payment.created', {
      token: store.token,
    });
    expect(createdOnly.body.total).toBe(2);
  });

  it('reads one event with every attempt', async () => {
    for (const base of EVENT_FORMS) {
      const res = await call<EventBody>('GET', `${base}/${created.id}`, { token: store.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created,
        attempts: [
          {
            run: 1,
            attempt: 1,
            at: expect.any(String),
            outcome: 'success',
            statusCode: 200,
            latencyMs: expect.any(Number),
            error: null,
          },
        ],
      });
    }
  });

  it('never shows, reads or redelivers another store’s event: 404 as for an unknown one', async () => {
    const list = await call<EventListBody>('GET', `/public-api/v1/events?paymentId=${paymentId}`, {
      token: other.token,
    });
    expect(list.body).toEqual({ items: [], page: 1, limit: 50, total: 0 });
    const unknown = `evt_${'0'.repeat(32)}`;
    for (const id of [created.id, unknown, 'not-an-event']) {
      const token = id === created.id ? other.token : store.token;
      const read = await call('GET', `/public-api/v1/events/${id}`, { token });
      expect(read.status).toBe(404);
      expect(read.body).toEqual({ statusCode: 404, message: ErrorMessages.eventNotFound });
      const redeliver = await call('POST', `/api-public/events/${id}/redeliver`, { token });
      expect(redeliver.status).toBe(404);
      expect(redeliver.body).toEqual({ statusCode: 404, message: ErrorMessages.eventNotFound });
    }
  });

  it('answers 409 while the event is still being retried', async () => {
    const failing = await call<{ id: string }>('POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 9, webhookUrl: `${url}?fail=1` },
    });
    const list = await eventually(
      () => call<EventListBody>('GET', `/public-api/v1/events?paymentId=${failing.body.id}`, { token: store.token }),
      (res) => (res.body.items?.[0]?.attemptCount ?? 0) >= 1,
    );
    const event = list.body.items[0]!;
    expect(event).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: expect.any(String) });
    const res = await call('POST', `/public-api/v1/events/${event.id}/redeliver`, { token: store.token });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ statusCode: 409, message: ErrorMessages.eventStillPending });
    const detail = await call<EventBody>('GET', `/public-api/v1/events/${event.id}`, { token: store.token });
    expect(detail.body.attempts?.[0]).toMatchObject({ run: 1, attempt: 1, outcome: 'failure', statusCode: 500 });
  });

  it('refuses malformed queries with class-validator style messages, and requires the token', async () => {
    const cases: [string, string][] = [
      [
        'type=payment.paid',
        'type must be one of the following values: payment.created, payment.status_changed, refund.created, ' +
          'refund.succeeded, refund.failed, payment.dispute_opened, payment.dispute_closed, payment.dispute_reminder',
      ],
      ['paymentId=abc', ErrorMessages.paymentIdInvalid],
      ['page=0', 'page must not be less than 1'],
      ['limit=201', 'limit must not be greater than 200'],
      ['limit=x', 'limit must be an integer number'],
    ];
    for (const [query, message] of cases) {
      const res = await call('GET', `/public-api/v1/events?${query}`, { token: store.token });
      expect([res.status, res.body]).toEqual([400, { statusCode: 400, message }]);
    }
    const anonymous = await call('GET', '/api-public/events');
    expect([anonymous.status, anonymous.body]).toEqual([
      401,
      { statusCode: 401, message: ErrorMessages.bearerMissing },
    ]);
  });
});
