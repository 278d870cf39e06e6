import { got } from '@pix/http';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { verify } from '../webhooks/helpers';

type Json = Record<string, unknown>;

/** "Found within 90 s with the default settings" (RECONCILE_INTERVAL 60 s), with a margin for a busy CI machine. */
const RECONCILED_WITHIN_MS = 90_000;

/**
 * A devolução the PSP makes on its own (a MED return after a fraud claim), on the shared stack: the
 * simulator's back office makes one (`POST /pix/{e2eid}/med`), it reaches the platform as a real
 * PSP's does (its callback read back, or the reconciliation's listing when the callback is lost),
 * and the merchant sees it as a refund of origin psp through the public API and its webhooks, once.
 */
describe("the PSP's own returns (MED) through the public API", () => {
  const stack = sharedStack();
  const backOfficeUrl = stack.psp?.backOfficeUrl ?? '';
  const receiver = new WebhookReceiver();
  let store: StoreCredentials;
  let webhookUrl: string;

  const call = <T = Json>(method: string, path: string, body?: unknown) =>
    api<T>(stack.gatewayUrl, method, `/public-api/v1${path}`, { token: store.token, body });

  /** A test payment paid through the public sandbox route; the endToEndId of the Pix that paid it. */
  async function paidPayment(amount: number): Promise<{ id: string; endToEndId: string }> {
    const created = await call<{ id: string }>('POST', '/payments', { amount, webhookUrl });
    expect(created.status).toBe(200);
    const paid = await call<{ endToEndId: string }>('POST', `/sandbox/payments/${created.body.id}/pay`);
    expect(paid.status).toBe(200);
    await eventually(
      async () => (await call(`GET`, `/payments/${created.body.id}`)).body,
      (p) => p.status === 'approved',
    );
    return { id: created.body.id, endToEndId: paid.body.endToEndId };
  }

  /** The simulator's back office: the PSP returns the Pix on its own. */
  const med = (endToEndId: string, body: unknown = {}) =>
    got.post(`${backOfficeUrl}/pix/${encodeURIComponent(endToEndId)}/med`, {
      json: body,
      throwHttpErrors: false,
      retry: { limit: 0 },
    });

  /** payments' psp_refunds_above_left_total for a nature (one payments process in the shared stack). */
  const aboveLeft = async (nature: string) => {
    const metrics = await api<string>(stack.opsUrls.payments, 'GET', '/metrics');
    const line = new RegExp(`^psp_refunds_above_left_total\\{[^}]*nature="${nature}"[^}]*\\} (\\d+)$`, 'm');
    return Number(line.exec(metrics.body)?.[1] ?? 0);
  };

  const refundsOf = async (paymentId: string) =>
    (await call<{ items: Json[] }>('GET', `/payments/${paymentId}/refunds`)).body.items;

  beforeAll(async () => {
    if (!backOfficeUrl) throw new Error('the shared stack runs no PSP simulator');
    webhookUrl = await receiver.start();
    store = await createStore(stack, 'MED returns store');
  });
  afterAll(() => receiver.stop());

  it('a MED return of the whole Pix is a refund of origin psp: refundedAmount, refund.created then refund.succeeded once', async () => {
    const payment = await paidPayment(42.5);
    const made = await med(payment.endToEndId);
    expect(made.statusCode).toBe(201);
    const { devolucao, txid } = JSON.parse(made.body) as { txid: string; devolucao: Json };
    expect(txid).toBe(payment.id.replace(/-/g, ''));
    // An id of the PSP's own, not the platform's (the charge's txid and a refund number).
    expect(devolucao).toMatchObject({ valor: '42.50', natureza: 'MED_FRAUDE', status: 'EM_PROCESSAMENTO' });
    expect(String(devolucao.id)).not.toContain(txid);

    const after = await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 42.5,
    );
    expect(after).toMatchObject({ status: 'approved', amount: 42.5, refundedAmount: 42.5 });
    const [refund, ...others] = await refundsOf(payment.id);
    expect(others).toEqual([]);
    expect(refund).toEqual({
      id: expect.any(String),
      paymentId: payment.id,
      livemode: false,
      endToEndId: payment.endToEndId,
      amount: 42.5,
      status: 'succeeded',
      reason: null,
      origin: 'psp',
      nature: 'med_fraud',
      createdAt: expect.any(String),
      settledAt: expect.any(String),
      failureReason: null,
    });
    expect((await call('GET', `/payments/${payment.id}/refunds/${String(refund?.id)}`)).body).toEqual(refund);

    const hooks = await eventually(
      async () => receiver.events(payment.id),
      (found) => found.length >= 4,
    );
    for (const hook of hooks) verify(hook, store.webhookSecret);
    expect(hooks.map((h) => h.json.event)).toEqual([
      'payment.created',
      'payment.status_changed',
      'refund.created',
      'refund.succeeded',
    ]);
    expect(hooks[2]?.json).toMatchObject({ id: refund?.id, status: 'pending', origin: 'psp', nature: 'med_fraud' });
    expect(hooks[3]?.json).toEqual({ event: 'refund.succeeded', ...refund, storeId: store.storeId });

    // Nothing is left for the merchant to refund.
    const more = await call('POST', `/payments/${payment.id}/refunds`);
    expect(more.status).toBe(400);
    // The PSP calls back until acknowledged and the next reconciliations list the devolução again:
    // still one refund, one pair of webhooks.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await refundsOf(payment.id)).toHaveLength(1);
    expect(receiver.events(payment.id).map((h) => h.json.event)).toHaveLength(4);
  });

  it('a partial MED_OPERACIONAL return leaves the rest to the merchant', async () => {
    const payment = await paidPayment(30);
    const made = await med(payment.endToEndId, { valor: '10.00', natureza: 'MED_OPERACIONAL' });
    expect(made.statusCode).toBe(201);
    await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 10,
    );
    expect(await refundsOf(payment.id)).toEqual([
      expect.objectContaining({ origin: 'psp', nature: 'med_operational', amount: 10, status: 'succeeded' }),
    ]);
    const rest = await call('POST', `/payments/${payment.id}/refunds`);
    expect(rest.body).toMatchObject({ amount: 20, origin: 'merchant', nature: null });
  });

  it('larger than what is left (a merchant refund went first): recorded as the PSP says, and flagged', async () => {
    const payment = await paidPayment(20);
    const flaggedBefore = await aboveLeft('other');
    expect((await call('POST', `/payments/${payment.id}/refunds`, { amount: 15 })).status).toBe(200);
    await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 15,
    );
    expect((await med(payment.endToEndId, { valor: '20.00', natureza: 'RETIRADA' })).statusCode).toBe(201);
    await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 35,
    );
    expect((await refundsOf(payment.id)).map((r) => [r.origin, r.nature, r.amount, r.status])).toEqual([
      ['psp', 'other', 20, 'succeeded'],
      ['merchant', null, 15, 'succeeded'],
    ]);
    expect(await aboveLeft('other')).toBe(flaggedBefore + 1);
  });

  it(
    'one whose callback the PSP lost is found by the reconciliation, and recorded once',
    async () => {
      const payment = await paidPayment(12.34);
      const madeAt = Date.now();
      expect((await med(payment.endToEndId, { dropCallback: true })).statusCode).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // Settled at the PSP, and not told: the payment waits for the next reconciliation.
      expect((await call('GET', `/payments/${payment.id}`)).body).toMatchObject({ refundedAmount: 0 });

      await eventually(
        async () => (await call('GET', `/payments/${payment.id}`)).body,
        (p) => p.refundedAmount === 12.34,
        RECONCILED_WITHIN_MS,
      );
      expect(Date.now() - madeAt).toBeLessThan(RECONCILED_WITHIN_MS);
      expect(await refundsOf(payment.id)).toEqual([
        expect.objectContaining({ origin: 'psp', nature: 'med_fraud', amount: 12.34, status: 'succeeded' }),
      ]);
      const refundHooks = await eventually(
        async () => receiver.events(payment.id).filter((h) => String(h.json.event).startsWith('refund.')),
        (found) => found.length >= 2,
      );
      expect(refundHooks.map((h) => h.json.event)).toEqual(['refund.created', 'refund.succeeded']);
    },
    2 * RECONCILED_WITHIN_MS,
  );

  it('the back office refuses what no PSP would return: no such Pix, more than the Pix, nothing left, a bad body', async () => {
    const payment = await paidPayment(5);
    const refusal = async (endToEndId: string, body: unknown) => {
      const answer = await med(endToEndId, body);
      return [answer.statusCode, (JSON.parse(answer.body) as { error: string }).error];
    };
    expect(await refusal('E00000000202611281200nosuchpix00', {})).toEqual([404, 'pix_not_found']);
    expect(await refusal(payment.endToEndId, { valor: '5.01' })).toEqual([409, 'more_than_the_pix']);
    expect(await refusal(payment.endToEndId, { natureza: 'FRAUDE' })).toEqual([400, 'invalid_body']);
    expect(await refusal(payment.endToEndId, { valor: 5 })).toEqual([400, 'invalid_body']);
    expect(await refusal(payment.endToEndId, { motivo: 'x' })).toEqual([400, 'invalid_body']);
    expect((await med(payment.endToEndId)).statusCode).toBe(201);
    expect(await refusal(payment.endToEndId, {})).toEqual([409, 'nothing_left_to_return']);
    await eventually(
      async () => (await call('GET', `/payments/${payment.id}`)).body,
      (p) => p.refundedAmount === 5,
    );
    expect(await refundsOf(payment.id)).toHaveLength(1);
  });
});
