import { got } from '@pix/http';
import { statementDay } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { sharedStack } from '../support/stack';

type Json = Record<string, unknown>;
interface Tx {
  id: string;
  type: string;
  amount: number;
  paymentId: string;
  refundId: string | null;
  endToEndId: string;
  origin: string | null;
  nature: string | null;
  connection: string;
  livemode: boolean;
  createdAt: string;
}

/**
 * A store's statement on the shared stack, read as a merchant reads it: a payment paid and partly
 * refunded, one returned by the PSP under MED (the simulator's `POST /pix/{e2eid}/med`), one paid
 * and then paid again late (the late Pix returned): every movement is a balance transaction, once,
 * and the day's statement and its CSV add up to what the payments and their refunds say.
 */
describe("a store's statement", () => {
  const stack = sharedStack();
  const backOfficeUrl = stack.psp?.backOfficeUrl ?? '';
  let store: StoreCredentials;
  const today = statementDay(new Date());

  const call = <T = Json>(method: string, path: string, body?: unknown) =>
    api<T>(stack.gatewayUrl, method, `/public-api/v1${path}`, { token: store.token, body });

  async function paidPayment(amount: number): Promise<{ id: string; endToEndId: string }> {
    const created = await call<{ id: string }>('POST', '/payments', { amount });
    expect(created.status).toBe(200);
    const paid = await call<{ endToEndId: string }>('POST', `/sandbox/payments/${created.body.id}/pay`);
    expect(paid.status).toBe(200);
    await eventually(
      async () => (await call(`GET`, `/payments/${created.body.id}`)).body,
      (p) => p.status === 'approved',
    );
    return { id: created.body.id, endToEndId: paid.body.endToEndId };
  }

  const transactions = async (query = '') =>
    (await call<{ items: Tx[]; total: number }>('GET', `/balance-transactions?limit=200${query}`)).body;

  /** The dashboard's session for the store's test token (its sign-in form, as a browser posts it). */
  async function dashboardCookie(): Promise<string> {
    const page = await fetch(`${stack.gatewayUrl}/dashboard/entrar`);
    const nonce = /pix_dashboard_login=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1];
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
    const signedIn = await fetch(`${stack.gatewayUrl}/dashboard/entrar`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: `pix_dashboard_login=${nonce}`,
        origin: stack.gatewayUrl,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: store.token, csrf: csrf! }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const session = signedIn.headers.getSetCookie().find((c) => !c.startsWith('pix_dashboard_login='));
    return session!.split(';')[0]!;
  }

  let refunded: { id: string; endToEndId: string };
  let returned: { id: string; endToEndId: string };
  let paidTwice: { id: string; endToEndId: string };
  let lateEndToEndId: string;

  beforeAll(async () => {
    if (!backOfficeUrl) throw new Error('the shared stack runs no PSP simulator');
    store = await createStore(stack, 'Statement store');
    refunded = await paidPayment(50);
    returned = await paidPayment(30);
    paidTwice = await paidPayment(10);
    expect((await call('POST', `/payments/${refunded.id}/refunds`, { amount: 20 })).status).toBe(200);
    const med = await got.post(`${backOfficeUrl}/pix/${encodeURIComponent(returned.endToEndId)}/med`, {
      json: {},
      throwHttpErrors: false,
      retry: { limit: 0 },
    });
    expect(med.statusCode).toBe(201);
    const late = await call<{ endToEndId: string }>('POST', `/sandbox/payments/${paidTwice.id}/pay`, { late: true });
    expect(late.status).toBe(200);
    lateEndToEndId = late.body.endToEndId;
    // Every refund settled at the PSP (the sandbox settles within a second).
    for (const payment of [refunded, returned, paidTwice]) {
      await eventually(
        async () => (await call<{ items: Json[] }>('GET', `/payments/${payment.id}/refunds`)).body.items,
        (items) => items.length === 1 && items.every((r) => r.status === 'succeeded'),
        30_000,
      );
    }
  }, 120_000);

  it('every movement is one balance transaction, with its payment, Pix, connection and mode', async () => {
    const { items, total } = await eventually(
      () => transactions(),
      (page) => page.total === 7,
    );
    expect(total).toBe(7);
    const refundsOf = async (id: string) =>
      (await call<{ items: { id: string }[] }>('GET', `/payments/${id}/refunds`)).body.items;
    const [merchantRefund] = await refundsOf(refunded.id);
    const [medReturn] = await refundsOf(returned.id);
    const [lateReturn] = await refundsOf(paidTwice.id);
    const common = { connection: 'test', livemode: false, createdAt: expect.any(String) };
    const expected = [
      { type: 'pix_received', amount: 50, paymentId: refunded.id, endToEndId: refunded.endToEndId, refundId: null },
      { type: 'pix_received', amount: 30, paymentId: returned.id, endToEndId: returned.endToEndId, refundId: null },
      { type: 'pix_received', amount: 10, paymentId: paidTwice.id, endToEndId: paidTwice.endToEndId, refundId: null },
      {
        type: 'refund',
        amount: -20,
        paymentId: refunded.id,
        endToEndId: refunded.endToEndId,
        refundId: merchantRefund!.id,
        origin: 'merchant',
      },
      {
        type: 'med_return',
        amount: -30,
        paymentId: returned.id,
        endToEndId: returned.endToEndId,
        refundId: medReturn!.id,
        origin: 'psp',
        nature: 'med_fraud',
      },
      {
        type: 'late_pix_received',
        amount: 10,
        paymentId: paidTwice.id,
        endToEndId: lateEndToEndId,
        refundId: null,
      },
      {
        type: 'late_pix_returned',
        amount: -10,
        paymentId: paidTwice.id,
        endToEndId: lateEndToEndId,
        refundId: lateReturn!.id,
        origin: 'platform',
      },
    ];
    for (const one of expected) {
      expect(items.filter((tx) => tx.type === one.type && tx.paymentId === one.paymentId)).toEqual([
        expect.objectContaining({ ...common, origin: null, nature: null, ...one }),
      ]);
    }
    // Newest first, as the payments list.
    const times = items.map((tx) => tx.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    // Filtered by type and by day.
    expect((await transactions('&type=med_return')).items.map((tx) => tx.paymentId)).toEqual([returned.id]);
    expect((await transactions(`&from=${today}&to=${today}`)).total).toBe(7);
  });

  it("the day's statement adds up to what the payments and their refunds say", async () => {
    const statement = (await call<Json>('GET', `/statements/${today}`)).body;
    const payments = await Promise.all(
      [refunded, returned, paidTwice].map(async (p) => (await call<Json>('GET', `/payments/${p.id}`)).body),
    );
    const refunds = (
      await Promise.all(
        [refunded, returned, paidTwice].map(
          async (p) => (await call<{ items: Json[] }>('GET', `/payments/${p.id}/refunds`)).body.items,
        ),
      )
    ).flat();
    const sum = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0) * 100) / 100;
    const latePix = refunds.filter((r) => r.origin === 'platform');
    const received = sum([...payments.map((p) => p.amount as number), ...latePix.map((r) => r.amount as number)]);
    const med = refunds.filter((r) => r.origin === 'psp');
    const refundedSum = sum(refunds.filter((r) => r.origin !== 'psp').map((r) => r.amount as number));
    expect(statement).toEqual({
      date: today,
      timeZone: 'America/Sao_Paulo',
      livemode: false,
      received,
      refunded: refundedSum,
      returnedByMed: sum(med.map((r) => r.amount as number)),
      atRisk: 0,
      net: sum([received, -refundedSum, -sum(med.map((r) => r.amount as number))]),
      counts: { received: 4, refunded: 2, returnedByMed: 1, atRisk: 0 },
    });
    expect(statement).toMatchObject({ received: 100, refunded: 30, returnedByMed: 30, net: 40 });
    // What the payments say they kept: paid less refundedAmount, plus the late Pix that came and went.
    expect(sum(payments.map((p) => (p.amount as number) - (p.refundedAmount as number)))).toBe(statement.net);
  });

  it('redelivery writes nothing twice: the PSP calling back again and the next listings add no movement', async () => {
    // The simulator calls back until acknowledged and every reconciliation lists the Pix and the
    // devolução again; the outbox relay publishes whatever a writer left. Nothing adds a movement.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await transactions()).total).toBe(7);
    expect((await call<Json>('GET', `/statements/${today}`)).body).toMatchObject({ received: 100, net: 40 });
  });

  it('refuses a malformed day or one outside the statement, in Portuguese', async () => {
    for (const [path, message] of [
      ['/statements/2026-02-30', 'date deve ser uma data no formato AAAA-MM-DD.'],
      ['/statements/ontem', 'date deve ser uma data no formato AAAA-MM-DD.'],
      ['/statements/2019-12-31', 'date deve ser um dia entre 16/11/2020 e hoje (horário de Brasília).'],
      ['/statements/2999-01-01', 'date deve ser um dia entre 16/11/2020 e hoje (horário de Brasília).'],
      ['/balance-transactions?from=2026-13-01', 'from deve ser uma data no formato AAAA-MM-DD.'],
      [
        '/balance-transactions?type=payout',
        'type must be one of the following values: pix_received, refund, med_return, late_pix_received, late_pix_returned',
      ],
      [`/balance-transactions?from=${today}&to=2020-11-16`, 'from deve ser anterior ou igual a to.'],
    ] as const) {
      const answer = await call(`GET`, path);
      expect({ path, ...answer.body }).toEqual({ path, statusCode: 400, message });
    }
  });

  it("the dashboard's Extrato shows the month by day, with the CSV links", async () => {
    const cookie = await dashboardCookie();
    const page = await fetch(`${stack.gatewayUrl}/dashboard/extrato`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const text = await page.text();
    const row = new RegExp(`<tr id="d-${today}"[^]*?</tr>`).exec(text)?.[0] ?? '';
    expect(row).toContain('R$ 100,00');
    expect(row).toContain('−R$ 30,00');
    expect(row).toContain('R$ 40,00');
    expect(row).toContain(`href="/dashboard/extrato/${today}.csv"`);
    expect(text).toContain(`href="/dashboard/extrato/${today.slice(0, 7)}.csv"`);
    const bad = await fetch(`${stack.gatewayUrl}/dashboard/extrato?mes=2019-01`, { headers: { cookie } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Período inválido');
  });

  it("downloads the day's CSV as a Brazilian spreadsheet reads it", async () => {
    const cookie = await dashboardCookie();
    const res = await fetch(`${stack.gatewayUrl}/dashboard/extrato/${today}.csv`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="extrato-${today}.csv"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    // UTF-8 with its byte order mark, so Excel reads the accents.
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('Data;Hora;Tipo;Valor (R$);Pagamento;Reembolso;EndToEndId;Origem;Natureza;Conexão;ID');
    expect(lines).toHaveLength(8);
    const [d, m, y] = [today.slice(8, 10), today.slice(5, 7), today.slice(0, 4)];
    const med = lines.find((line) => line.includes(';Devolução MED;'))!;
    expect(med).toMatch(
      new RegExp(
        `^${d}/${m}/${y};\\d{2}:\\d{2}:\\d{2};Devolução MED;-30,00;${returned.id};[0-9a-f-]{36};${returned.endToEndId};PSP;MED fraude;test;${returned.id}:med_return:[0-9a-f-]{36}$`,
      ),
    );
    expect(lines.find((line) => line.includes(`;Pix recebido;50,00;${refunded.id};`))).toBeDefined();
    expect(lines.find((line) => line.includes(`;Reembolso;-20,00;${refunded.id};`))).toBeDefined();
    // Oldest first, as a statement reads.
    const times = lines.slice(1).map((line) => line.split(';').slice(0, 2).join(' '));
    expect(times).toEqual([...times].sort());
  });
});
