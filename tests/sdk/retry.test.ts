import { createClient, PixApiError, PixConnectionError } from '@pix-payments/client';

/**
 * How create retries, with a fetch of the test's own in place of the network (a unit test: the
 * failures are the point, and a real gateway does not fail on demand). Every try must carry the
 * same Idempotency-Key, so the gateway makes one payment however many tries it sees.
 */
describe('payments.create retries', () => {
  const payment = { id: '7d3f6c1e-0f4b-4a51-9a43-1d2b3c4d5e6f', status: 'pending' };

  function scripted(answers: (() => Response)[]) {
    const seen: { url: string; key: string | null; body: string }[] = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      seen.push({ url: String(input), key: headers.get('idempotency-key'), body: String(init?.body) });
      const next = answers.shift();
      if (!next) throw new Error('no more answers scripted');
      return next();
    }) as typeof globalThis.fetch;
    return { fetch, seen };
  }
  const json = (status: number, body: unknown) => () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const networkError = () => {
    throw new TypeError('fetch failed');
  };
  const retry = { retries: 3, baseDelayMs: 1, maxDelayMs: 2 };

  it('retries network errors and 5xx with the same Idempotency-Key until it succeeds', async () => {
    const { fetch, seen } = scripted([
      networkError,
      json(503, { statusCode: 503, message: 'down' }),
      json(500, { statusCode: 500, message: 'bug' }),
      json(200, payment),
    ]);
    const client = createClient({ baseUrl: 'http://api.test/', token: 't', fetch, retry });
    await expect(client.payments.create({ amount: 10 })).resolves.toEqual(payment);
    expect(seen).toHaveLength(4);
    expect(seen[0]!.url).toBe('http://api.test/public-api/v1/payments');
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    expect(new Set(seen.map((s) => s.body))).toEqual(new Set(['{"amount":10}']));
  });

  it('never retries a 4xx, and a new create gets a new key', async () => {
    const { fetch, seen } = scripted([
      json(409, { statusCode: 409, message: 'Idempotency-Key já utilizada com outro corpo de requisição.' }),
      json(400, { statusCode: 400, message: 'email must be an email' }),
    ]);
    const client = createClient({ baseUrl: 'http://api.test', token: 't', fetch, retry });
    const conflict = await client.payments.create({ amount: 10 }, { idempotencyKey: 'order-42' }).catch((e) => e);
    expect(conflict).toBeInstanceOf(PixApiError);
    expect(conflict).toMatchObject({ statusCode: 409, message: expect.stringContaining('Idempotency-Key') });
    await expect(client.payments.create({ amount: 10, email: 'x' })).rejects.toMatchObject({ statusCode: 400 });
    expect(seen.map((s) => s.key)).toEqual(['order-42', expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });

  it('gives up after the retries with the last error, typed', async () => {
    const { fetch, seen } = scripted([networkError, networkError, networkError, networkError]);
    const client = createClient({ baseUrl: 'http://api.test', token: 't', fetch, retry });
    const failure = await client.payments.create({ amount: 10 }).catch((e) => e);
    expect(failure).toBeInstanceOf(PixConnectionError);
    expect(seen).toHaveLength(4);
  });

  it('does not retry reads: only create is made safe to repeat by its key', async () => {
    const { fetch, seen } = scripted([json(503, { statusCode: 503, message: 'down' })]);
    const client = createClient({ baseUrl: 'http://api.test', token: 't', fetch, retry });
    await expect(client.payments.get(payment.id)).rejects.toMatchObject({ statusCode: 503, message: 'down' });
    expect(seen).toHaveLength(1);
  });
});
