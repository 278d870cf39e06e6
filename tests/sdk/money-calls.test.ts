import { createClient, PixApiError, type BalanceTransaction } from '@pix-payments/client';

/**
 * What the TypeScript SDK sends for a dispute's defence, the balance transactions and a day's
 * statement, with a fetch of the test's own in place of the network (a unit test of the requests:
 * the live API answers them in the conformance scenario, tests/sdk/conformance.test.ts).
 */
describe('defendDispute, balanceTransactions and statements', () => {
  const PAYMENT_ID = '7d3f6c1e-0f4b-4a51-9a43-1d2b3c4d5e6f';

  function scripted(answers: unknown[]) {
    const seen: { method: string; url: URL; body: string | undefined }[] = [];
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push({ method: init?.method ?? 'GET', url: new URL(String(input)), body: init?.body as string | undefined });
      if (answers.length === 0) throw new Error('no more answers scripted');
      const answer = answers.shift() as { status?: number; body: unknown };
      return new Response(JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    return { client: createClient({ baseUrl: 'http://api.test', token: 't', fetch }), seen };
  }

  const movement = (n: number): BalanceTransaction => ({
    id: `${PAYMENT_ID}:pix_received:E${n}`,
    type: 'pix_received',
    amount: 10,
    paymentId: PAYMENT_ID,
    refundId: null,
    endToEndId: `E${n}`,
    origin: null,
    nature: null,
    connection: 'test',
    livemode: false,
    createdAt: '2026-11-29T02:30:00.000Z',
  });
  const page = (items: BalanceTransaction[], number: number, limit: number, total: number) => ({
    body: { items, page: number, limit, total },
  });

  it('sends the defence as {text} to the payment, once, and a 409 is thrown with its message', async () => {
    const refused = { statusCode: 409, message: 'Este pagamento não tem uma contestação aberta.' };
    const { client, seen } = scripted([{ body: { id: PAYMENT_ID } }, { status: 409, body: refused }]);
    await expect(client.payments.defendDispute(PAYMENT_ID, 'Entregue; segue o comprovante.')).resolves.toEqual({
      id: PAYMENT_ID,
    });
    const error = await client.payments.defendDispute('a/b', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixApiError);
    expect(error).toMatchObject({ statusCode: 409, message: refused.message });
    expect(seen.map((s) => [s.method, s.url.pathname, s.body])).toEqual([
      ['POST', `/public-api/v1/payments/${PAYMENT_ID}/dispute/defense`, '{"text":"Entregue; segue o comprovante."}'],
      ['POST', '/public-api/v1/payments/a%2Fb/dispute/defense', '{"text":"x"}'],
    ]);
  });

  it('lists balance transactions with only the filters given, and listAll walks the pages lazily', async () => {
    const { client, seen } = scripted([
      page([], 1, 50, 0),
      page([movement(1), movement(2)], 1, 2, 3),
      page([movement(3)], 2, 2, 3),
    ]);
    await client.balanceTransactions.list();
    expect(seen[0]!.url.href).toBe('http://api.test/public-api/v1/balance-transactions');

    const all = client.balanceTransactions.listAll({
      type: 'pix_received',
      from: '2026-11-01',
      to: '2026-11-29',
      limit: 2,
    });
    const first = await all.next();
    expect(first.value).toMatchObject({ endToEndId: 'E1' });
    expect(seen).toHaveLength(2);
    const rest: string[] = [];
    for await (const item of all) rest.push(item.endToEndId);
    expect(rest).toEqual(['E2', 'E3']);
    expect(seen.slice(1).map((s) => Object.fromEntries(s.url.searchParams))).toEqual(
      [1, 2].map((n) => ({ type: 'pix_received', from: '2026-11-01', to: '2026-11-29', page: String(n), limit: '2' })),
    );
  });

  it("reads a day's statement: a date as given, a Date by its day in America/Sao_Paulo", async () => {
    const statement = { date: '2026-11-28', timeZone: 'America/Sao_Paulo' };
    const { client, seen } = scripted([{ body: statement }, { body: statement }, { body: statement }]);
    await expect(client.statements.retrieve('2026-11-28')).resolves.toEqual(statement);
    // 02:30 UTC is still the evening before in São Paulo (UTC−3); 03:00 UTC is its midnight.
    await client.statements.retrieve(new Date('2026-11-29T02:30:00.000Z'));
    await client.statements.retrieve(new Date('2026-11-29T03:00:00.000Z'));
    expect(seen.map((s) => s.url.pathname)).toEqual([
      '/public-api/v1/statements/2026-11-28',
      '/public-api/v1/statements/2026-11-28',
      '/public-api/v1/statements/2026-11-29',
    ]);
  });
});
