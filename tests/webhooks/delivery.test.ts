import { admin, adminFails, createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver';
import { createPayment, deadLetters, deliveriesOf, dispatcherConsumerBacklog, metric, verify } from './helpers';

/**
 * Webhook delivery through a private stack with a short retry schedule (three attempts, 200 ms
 * apart) and TWO dispatcher replicas on the same NATS and MongoDB, so every test also shows that
 * replicas share the work without sending an attempt twice.
 */
describe('webhook delivery', () => {
  let stack: PrivateStack;
  let replica: PrivateStack;
  let store: StoreCredentials;
  const receivers: WebhookReceiver[] = [];

  async function receiver(): Promise<{ receiver: WebhookReceiver; url: string }> {
    const r = new WebhookReceiver();
    receivers.push(r);
    return { receiver: r, url: await r.start() };
  }

  beforeAll(async () => {
    // Few slots per replica (4 per endpoint, 6 in all), so that a busy endpoint could crowd out others.
    const env = {
      WEBHOOK_RETRY_SCHEDULE: '0s,200ms,200ms',
      WEBHOOK_TIMEOUT: '10s',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_MAX_IN_FLIGHT: '6',
    };
    stack = await startPrivateStack({ env });
    replica = await startPrivateStack({
      env,
      natsUrl: stack.natsUrl,
      natsCredentials: stack.natsCredentials,
      mongoUrl: stack.mongoUrl,
      secretsFile: stack.secretsFile,
      services: ['webhook-dispatcher'],
    });
    store = await createStore(stack, 'Webhook store');
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
    await replica?.stop();
    await stack?.stop();
  });

  /** A dispatcher metric summed over both replicas. */
  async function total(name: string, labels = ''): Promise<number> {
    const values = await Promise.all(
      [stack, replica].map((s) => metric(s.opsUrls['webhook-dispatcher'], name, labels)),
    );
    return values.reduce((a, b) => a + b, 0);
  }

  it('signs every attempt and keeps the same webhook-id across retries', async () => {
    const { receiver: r, url } = await receiver();
    let calls = 0;
    r.respond = () => (++calls <= 2 ? 500 : 200);
    const before = {
      retries: await total('webhook_retries_total'),
      failures: await total('webhook_deliveries_total', 'outcome="failure"'),
      successes: await total('webhook_deliveries_total', 'outcome="success"'),
      timed: await total('webhook_delivery_duration_seconds_count'),
    };
    const id = await createPayment(stack, store.token, url);

    const hooks = await eventually(
      async () => r.events(id, 'payment.created'),
      (h) => h.length >= 3,
    );
    expect(hooks).toHaveLength(3);
    const ids = new Set(hooks.map((h) => h.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const hook of hooks) {
      expect(hook.method).toBe('POST');
      expect(hook.headers['content-type']).toBe('application/json');
      expect(hook.headers['user-agent']).toMatch(/^pix-payments-webhooks\/\d+\.\d+\.\d+$/);
      expect(verify(hook, store.webhookSecret)).toMatchObject({ event: 'payment.created', id, status: 'pending' });
      expect(hook.json).not.toHaveProperty('isPublic');
    }

    const [delivery] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivery?.eventId).toBe([...ids][0]);
    expect(await total('webhook_retries_total')).toBe(before.retries + 2);
    expect(await total('webhook_deliveries_total', 'outcome="failure"')).toBe(before.failures + 2);
    expect(await total('webhook_deliveries_total', 'outcome="success"')).toBe(before.successes + 1);
    expect(await total('webhook_delivery_duration_seconds_count')).toBe(before.timed + 3);
  });

  it.each([
    ['a name resolving to loopback', (url: string) => url.replace('127.0.0.1', 'localhost')],
    ['an IPv4-mapped loopback address', (url: string) => url.replace('127.0.0.1', '[::ffff:127.0.0.1]')],
  ])('delivers to %s with WEBHOOK_ALLOW_PRIVATE_TARGETS=true (as make up sets)', async (_name, target) => {
    const { receiver: r, url } = await receiver();
    const id = await createPayment(stack, store.token, target(url));
    const [hook] = await eventually(
      async () => r.events(id),
      (h) => h.length === 1,
    );
    expect(verify(hook, store.webhookSecret)).toMatchObject({ id, webhookUrl: target(url) });
  });

  it('logs each attempt: time, status code, latency, error', async () => {
    const { receiver: r, url } = await receiver();
    r.respond = (hook) => (r.received.indexOf(hook) === 0 ? 503 : 204);
    const id = await createPayment(stack, store.token, url);

    const [delivery] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivery).toMatchObject({ event: 'payment.created', sequence: 1, url, status: 'delivered' });
    expect(delivery?.attempts).toEqual([
      expect.objectContaining({ run: 1, attempt: 1, outcome: 'failure', statusCode: 503, error: 'HTTP 503' }),
      expect.objectContaining({ run: 1, attempt: 2, outcome: 'success', statusCode: 204, error: null }),
    ]);
    for (const attempt of delivery?.attempts ?? []) {
      expect(Date.parse(attempt.at)).not.toBeNaN();
      expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const { receiver: r, url } = await receiver();
    r.respond = (hook) =>
      r.received.indexOf(hook) === 0 ? { status: 302, headers: { location: `${url}/elsewhere` } } : 200;
    const id = await createPayment(stack, store.token, url);

    const [delivery] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([302, 200]);
    expect(r.received.every((h) => h.path === '/hooks')).toBe(true);
  });

  it('judges an answer by its status, however large its body', async () => {
    const { receiver: r, url } = await receiver();
    const huge = 'x'.repeat(4 * 1024 * 1024);
    r.respond = (hook) => ({ status: r.received.indexOf(hook) === 0 ? 500 : 200, body: huge });
    const id = await createPayment(stack, store.token, url);

    const [delivery] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivery?.attempts.map((a) => [a.outcome, a.statusCode])).toEqual([
      ['failure', 500],
      ['success', 200],
    ]);
  });

  it('runs a short schedule to the dead letter, then replays it with the same webhook-id', async () => {
    const { receiver: r, url } = await receiver();
    r.respond = () => 500;
    const deadBefore = await total('webhook_dead_letters_total');
    const id = await createPayment(stack, store.token, url);

    const [dead] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'dead',
    );
    expect(dead?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(r.events(id)).toHaveLength(3);
    const letter = await eventually(
      async () => (await deadLetters(stack)).find((l) => l.eventId === dead?.eventId),
      (l) => l !== undefined,
    );
    expect(letter).toMatchObject({
      paymentId: id,
      storeId: store.storeId,
      url,
      reason: 'exhausted',
      attempts: 3,
      lastError: 'HTTP 500',
    });
    expect(letter?.event.body).toMatchObject({ event: 'payment.created', id });
    expect(await total('webhook_dead_letters_total')).toBe(deadBefore + 1);

    r.respond = () => 200;
    const replay = await admin(stack, 'webhooks', 'replay', dead?.eventId ?? '');
    expect(replay).toEqual({ eventId: dead?.eventId, status: 'pending', run: 2 });
    const [replayed] = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d[0]?.status === 'delivered',
    );
    expect(replayed?.attempts.at(-1)).toMatchObject({ run: 2, attempt: 1, outcome: 'success', statusCode: 200 });
    const hooks = r.events(id);
    expect(hooks).toHaveLength(4);
    expect(new Set(hooks.map((h) => h.headers['webhook-id']))).toEqual(new Set([dead?.eventId]));
    expect(verify(hooks[3], store.webhookSecret)).toMatchObject({ id });

    // A delivered event can be replayed too.
    await admin(stack, 'webhooks', 'replay', dead?.eventId ?? '');
    await eventually(
      async () => r.events(id).length,
      (n) => n === 5,
    );
  });

  it('refuses to replay an unknown event', async () => {
    const failure = await adminFails(stack, 'webhooks', 'replay', 'evt_unknown');
    expect(failure.code).not.toBe(0);
    expect(failure.stderr).toContain('error 404: no webhook delivery for event evt_unknown');
  });

  /**
   * A new payment's webhook reaches this (healthy) endpoint while the hung one still holds every
   * slot: before its first attempt times out (WEBHOOK_TIMEOUT, 10 s), after which a retry (200 ms
   * later) would reach it as a ninth request. Stated as that order, not a wall-clock bound, so a
   * loaded machine cannot fail it.
   */
  async function expectDeliveredWhileTheHungHoldsItsSlots(
    healthy: { receiver: WebhookReceiver; url: string },
    hung: { receiver: WebhookReceiver },
  ): Promise<void> {
    const id = await createPayment(stack, store.token, healthy.url);
    const [hook] = await eventually(
      async () => healthy.receiver.events(id),
      (h) => h.length === 1,
      30_000,
      20,
    );
    expect(hung.receiver.received.length).toBe(8);
    // Before any slot of the hung endpoint could have been freed by its timeout.
    const firstHung = Math.min(...hung.receiver.received.map((h) => h.at));
    expect((hook?.at ?? Infinity) - firstHung).toBeLessThan(10_000);
  }

  it('keeps delivering to other endpoints while one hangs', async () => {
    const hung = await receiver();
    hung.receiver.respond = () => new Promise<number>(() => undefined);
    const healthy = await receiver();
    for (let i = 0; i < 10; i++) await createPayment(stack, store.token, hung.url);
    // Both replicas fill their per-endpoint slots (4 each) with the hung endpoint.
    await eventually(
      async () => hung.receiver.received.length,
      (n) => n === 8,
    );

    await expectDeliveredWhileTheHungHoldsItsSlots(healthy, hung);
    // The hung endpoint holds no more than its slots: only the events whose attempts it holds (4
    // per replica, made as they were taken in) wait unacked; every other event was acked.
    await eventually(
      () => dispatcherConsumerBacklog(stack),
      (backlog) => backlog.ackPending <= 8 && backlog.pending === 0,
    );
    for (const ops of [stack.opsUrls['webhook-dispatcher'], replica.opsUrls['webhook-dispatcher']]) {
      expect(await metric(ops, 'webhook_in_flight', `endpoint="${new URL(hung.url).origin}"`)).toBe(4);
    }
  });

  it('keeps delivering to other endpoints while a failing one has a backlog', async () => {
    const failing = await receiver();
    failing.receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(500), 1000));
    const healthy = await receiver();
    await Promise.all(Array.from({ length: 30 }, () => createPayment(stack, store.token, failing.url)));
    // The backlog is there once both replicas fill the endpoint's slots (8): 90 attempts of a second
    // each (3 per event), 8 at a time, keep it busy for about ten seconds more. (Waiting for every
    // event's first attempt instead left too few in a loaded CI run.)
    await eventually(
      async () => failing.receiver.received.length,
      (n) => n >= 8,
      30_000,
    );

    // The healthy endpoint's webhook goes ahead of that backlog, not after it: the failing
    // endpoint still gets attempts after it. Stated as an order, not a wall-clock bound, so a
    // loaded machine cannot fail it (nor pass it by a slow backlog). The hung endpoint of the test
    // before still holds 4 slots of each replica (for as long as its 30 attempts of 10 s last), so
    // with the failing one every slot of both replicas is taken: the healthy webhook waits for the
    // next slot freed, rather than race the backlog for it (endpoint-limiter.ts).
    const id = await createPayment(stack, store.token, healthy.url);
    const [hook] = await eventually(
      async () => healthy.receiver.events(id),
      (h) => h.length === 1,
      30_000,
      20,
    );
    await eventually(
      async () => failing.receiver.received.filter((h) => h.at > hook!.at).length,
      (n) => n >= 8,
      30_000,
    );
  });

  it("never delivers a payment's status_changed before its created", async () => {
    const { receiver: r, url } = await receiver();
    let releaseCreated: () => void = () => undefined;
    const createdHeld = new Promise<number>((resolve) => (releaseCreated = () => resolve(200)));
    let createdAnsweredAt = Infinity;
    r.respond = (hook: ReceivedWebhook) => {
      if (hook.json.event !== 'payment.created') return 200;
      return createdHeld.then((status) => {
        createdAnsweredAt = Date.now();
        return status;
      });
    };
    const id = await createPayment(stack, store.token, url);
    await eventually(
      async () => r.events(id, 'payment.created').length,
      (n) => n === 1,
    );
    await admin(stack, 'sandbox', 'pay', id);
    // The status change is recorded and due while created is still in flight...
    const held = await eventually(
      () => deliveriesOf(stack, id),
      (d) => d.length === 2,
    );
    expect(held.map((d) => [d.event, d.status])).toEqual([
      ['payment.created', 'pending'],
      ['payment.status_changed', 'pending'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.events(id, 'payment.status_changed')).toHaveLength(0);

    // ...and goes as soon as created is answered.
    releaseCreated();
    const [changed] = await eventually(
      async () => r.events(id, 'payment.status_changed'),
      (h) => h.length === 1,
    );
    expect(changed?.at).toBeGreaterThanOrEqual(createdAnsweredAt);
    expect(changed?.json).toMatchObject({ status: 'approved', previousStatus: 'pending' });
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const rotating = await createStore(stack, 'Rotating store');
    const rotated = await admin<{ storeId: string; webhookSecret: string }>(
      stack,
      'store',
      'rotate-secret',
      rotating.storeId,
    );
    expect(rotated.storeId).toBe(rotating.storeId);
    expect(rotated.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(rotated.webhookSecret).not.toBe(rotating.webhookSecret);

    const { receiver: r, url } = await receiver();
    const id = await createPayment(stack, rotating.token, url);
    const [hook] = await eventually(
      async () => r.events(id),
      (h) => h.length === 1,
    );
    expect(String(hook?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(hook, rotated.webhookSecret)).toMatchObject({ id });
    expect(verify(hook, rotating.webhookSecret)).toMatchObject({ id });

    const unknown = await adminFails(stack, 'store', 'rotate-secret', 'no-such-store');
    expect(unknown.stderr).toContain('error 404');
  });

  it('sends each event once when replicas share the work', async () => {
    const { receiver: r, url } = await receiver();
    const ids = await Promise.all(Array.from({ length: 12 }, () => createPayment(stack, store.token, url)));
    await eventually(
      async () => r.received.length,
      (n) => n >= ids.length,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.received).toHaveLength(ids.length);
    expect(new Set(r.received.map((h) => h.headers['webhook-id'])).size).toBe(ids.length);
  });
});
