import { randomUUID } from 'node:crypto';
import { ErrorMessages, SandboxMessages } from '@pix/contracts';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { withPspDb } from '../support/db';
import { statusChangedEvents } from '../support/payments';
import { sharedStack } from '../support/stack';

const SANDBOX_FORMS = ['/api-public/sandbox/payments', '/public-api/v1/sandbox/payments'] as const;

/**
 * The sandbox PSP over the public API (test mode's PSP is the shared stack's simulator): a merchant's
 * own code pays, reviews, clears and rejects its payments with its bearer token, and the payment
 * changes through the same PSP callback path as with a real PSP.
 */
describe('sandbox routes of the public API', () => {
  const stack = sharedStack();
  let store: StoreCredentials;

  beforeAll(async () => {
    store = await createStore(stack, 'Sandbox routes store');
  });

  async function create(amount: number, token = store.token): Promise<string> {
    const res = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token,
      body: { amount, email: 'cliente@example.com' },
    });
    expect(res.status).toBe(200);
    return res.body.id;
  }

  function act(base: string, id: string, action: string, options: Parameters<typeof api>[3] = {}) {
    return api(stack.gatewayUrl, 'POST', `${base}/${id}/${action}`, { token: store.token, ...options });
  }

  async function status(id: string): Promise<string> {
    const res = await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, {
      token: store.token,
    });
    return res.body.status;
  }

  function waitForStatus(id: string, wanted: string) {
    return eventually(
      () => status(id),
      (s) => s === wanted,
    );
  }

  it.each(SANDBOX_FORMS)(
    '%s: pay approves the payment and answers what the CLI prints; a retry answers the same Pix',
    async (base) => {
      const id = await create(25.5);
      const paid = await act(base, id, 'pay');
      expect(paid.status).toBe(200);
      expect(paid.body).toEqual({
        paymentId: id,
        txid: id.replace(/-/g, ''),
        endToEndId: expect.stringMatching(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/),
        amount: 25.5,
      });
      await waitForStatus(id, 'approved');

      const again = await act(base, id, 'pay', { body: {} });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(paid.body);
      const other = await act(base, id, 'pay', { body: { amount: 30 } });
      expect(other).toMatchObject({
        status: 409,
        body: { statusCode: 409, message: SandboxMessages.chargePaidOtherwise },
      });
      const review = await act(base, id, 'review');
      expect(review.body).toEqual({ statusCode: 409, message: SandboxMessages.chargePaidOtherwise });

      await new Promise((resolve) => setTimeout(resolve, 300));
      const changes = await statusChangedEvents(stack, id, 1);
      expect(changes.map((e) => e.data.body.status)).toEqual(['approved']);
    },
  );

  it('pay with another amount sends the payment to review, where it stays: there is no held Pix to clear', async () => {
    const base = SANDBOX_FORMS[1];
    const id = await create(42.1);
    const paid = await act(base, id, 'pay', { body: { amount: 40 } });
    expect(paid).toMatchObject({ status: 200, body: { paymentId: id, amount: 40 } });
    await waitForStatus(id, 'review');
    expect((await act(base, id, 'pay', { body: { amount: 40 } })).body).toEqual(paid.body);
    const clear = await act(base, id, 'clear');
    expect(clear).toMatchObject({ status: 409, body: { message: SandboxMessages.nothingHeld } });
  });

  it('review holds the Pix and clear approves it; a retried clear answers the same, a reject is refused', async () => {
    const base = SANDBOX_FORMS[0];
    const id = await create(12.34);
    const held = await act(base, id, 'review');
    expect(held.status).toBe(200);
    await waitForStatus(id, 'review');
    const cleared = await act(base, id, 'clear');
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({
      paymentId: id,
      txid: id.replace(/-/g, ''),
      endToEndId: (held.body as { endToEndId: string }).endToEndId,
      analysis: 'cleared',
    });
    await waitForStatus(id, 'approved');
    expect((await act(base, id, 'clear')).body).toEqual(cleared.body);
    const rejected = await act(base, id, 'reject');
    expect(rejected).toMatchObject({ status: 409, body: { message: SandboxMessages.analysisDecided } });
    const changes = await statusChangedEvents(stack, id, 2);
    expect(changes.map((e) => e.data.body.status)).toEqual(['review', 'approved']);
  });

  it('review holds the Pix and reject refunds it (not_approved)', async () => {
    const base = SANDBOX_FORMS[0];
    const id = await create(10);
    const held = await act(base, id, 'review');
    expect(held).toMatchObject({ status: 200, body: { paymentId: id, analysis: 'review' } });
    await waitForStatus(id, 'review');
    const rejected = await act(base, id, 'reject');
    expect(rejected).toMatchObject({ status: 200, body: { analysis: 'rejected' } });
    await waitForStatus(id, 'not_approved');
    await withPspDb(stack, async (db) => {
      const refunds = await db
        .collection('sandbox_psp_refunds')
        .find({ endToEndId: (held.body as { endToEndId: string }).endToEndId })
        .toArray();
      expect(refunds).toHaveLength(1);
    });
  });

  it('answers 409 with a clear message for an action the payment does not allow', async () => {
    const base = SANDBOX_FORMS[1];
    const id = await create(15);
    for (const action of ['clear', 'reject']) {
      const res = await act(base, id, action);
      expect(res).toMatchObject({ status: 409, body: { statusCode: 409, message: SandboxMessages.nothingHeld } });
    }
    expect(await status(id)).toBe('pending');
  });

  it('refuses a body that is not what pay takes', async () => {
    const base = SANDBOX_FORMS[1];
    const id = await create(15);
    // 37800486871.9: more than API Pix's valor can carry (ten digits before the point).
    for (const amount of ['10', 0, -5, 10.001, 37800486871.9]) {
      const res = await act(base, id, 'pay', { body: { amount } });
      expect(res).toMatchObject({ status: 400, body: { statusCode: 400, message: SandboxMessages.amountInvalid } });
    }
    const form = await act(base, id, 'pay', {
      rawBody: 'amount=10',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form).toMatchObject({ status: 400, body: { message: ErrorMessages.unsupportedMediaType } });
    const nothing = await act(base, id, 'pay', { rawBody: 'null', headers: { 'content-type': 'application/json' } });
    expect(nothing).toMatchObject({ status: 400, body: { message: ErrorMessages.bodyNotObject } });
    const malformed = await act(base, id, 'pay', { rawBody: '{', headers: { 'content-type': 'application/json' } });
    expect(malformed).toMatchObject({ status: 400, body: { message: ErrorMessages.malformedJson } });
    expect(await status(id)).toBe('pending');
  });

  it('med: the PSP returns the Pix on its own, and the payment gains a refund of origin psp; each call a new return', async () => {
    const base = SANDBOX_FORMS[1];
    const id = await create(40);
    const unpaid = await act(base, id, 'med');
    expect(unpaid).toMatchObject({ status: 409, body: { statusCode: 409, message: SandboxMessages.nothingPaid } });
    for (const body of [{ nature: 'other' }, { nature: 'MED_FRAUDE' }, { amount: 0 }, { amount: '5' }]) {
      const refused = await act(base, id, 'med', { body });
      const message = 'nature' in body ? SandboxMessages.natureInvalid : SandboxMessages.amountInvalid;
      expect(refused).toMatchObject({ status: 400, body: { statusCode: 400, message } });
    }
    expect((await act(base, id, 'pay')).status).toBe(200);
    await waitForStatus(id, 'approved');

    const first = await act(base, id, 'med', { body: { amount: 15 } });
    expect(first).toMatchObject({ status: 200, body: { paymentId: id, amount: 15, nature: 'med_fraud' } });
    const second = await act(base, id, 'med', { body: { amount: 5, nature: 'med_operational' } });
    expect(second).toMatchObject({ status: 200, body: { paymentId: id, amount: 5, nature: 'med_operational' } });
    const above = await act(base, id, 'med', { body: { amount: 40.01 } });
    expect(above).toMatchObject({ status: 409, body: { message: SandboxMessages.returnAbovePix } });

    const refunds = await eventually(
      () =>
        api<{ items: { amount: number; status: string; origin: string; nature: string | null }[] }>(
          stack.gatewayUrl,
          'GET',
          `/public-api/v1/payments/${id}/refunds`,
          { token: store.token },
        ),
      (res) => res.body.items.length === 2 && res.body.items.every((r) => r.status === 'succeeded'),
    );
    expect(
      refunds.body.items
        .map(({ amount, origin, nature }) => ({ amount, origin, nature }))
        .sort((a, b) => a.amount - b.amount),
    ).toEqual([
      { amount: 5, origin: 'psp', nature: 'med_operational' },
      { amount: 15, origin: 'psp', nature: 'med_fraud' },
    ]);
    const payment = await api<{ status: string; refundedAmount: number }>(
      stack.gatewayUrl,
      'GET',
      `/public-api/v1/payments/${id}`,
      {
        token: store.token,
      },
    );
    expect(payment.body).toMatchObject({ status: 'approved', refundedAmount: 20 });
    // The rest of the Pix, then nothing is left to return.
    expect((await act(base, id, 'med')).body).toMatchObject({ amount: 20 });
    const nothing = await act(base, id, 'med');
    expect(nothing).toMatchObject({ status: 409, body: { message: SandboxMessages.nothingLeftToReturn } });
  });

  it('is authenticated like the payments routes: 401 and 403', async () => {
    const id = await create(20);
    for (const base of SANDBOX_FORMS) {
      const missing = await api(stack.gatewayUrl, 'POST', `${base}/${id}/pay`);
      expect(missing).toMatchObject({ status: 401, body: { statusCode: 401, message: ErrorMessages.bearerMissing } });
      const wrong = await api(stack.gatewayUrl, 'POST', `${base}/${id}/pay`, { token: 'pxt_not-a-token' });
      expect(wrong).toMatchObject({ status: 401, body: { message: ErrorMessages.tokenInvalid } });
    }
    const inactive = await createStore(stack, 'Inactive sandbox store');
    const theirs = await create(20, inactive.token);
    await admin(stack, 'store', 'deactivate', inactive.storeId);
    const refused = await eventually(
      () => api(stack.gatewayUrl, 'POST', `${SANDBOX_FORMS[0]}/${theirs}/pay`, { token: inactive.token }),
      (res) => res.status === 403,
    );
    expect(refused.body).toEqual({ statusCode: 403, message: ErrorMessages.storeInactive });
    expect(await status(id)).toBe('pending');
  });

  it("answers 404 for an unknown payment, another store's payment and an id that is no UUID", async () => {
    const other = await createStore(stack, 'Another sandbox store');
    const theirs = await create(20, other.token);
    for (const base of SANDBOX_FORMS) {
      for (const id of [randomUUID(), theirs, 'not-a-uuid']) {
        for (const action of ['pay', 'review', 'clear', 'reject', 'fail-next-refund', 'med']) {
          const res = await act(base, id, action);
          expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.paymentNotFound } });
        }
      }
    }
    const stillPending = await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${theirs}`, {
      token: other.token,
    });
    expect(stillPending.body.status).toBe('pending');
    const unknownAction = await act(SANDBOX_FORMS[1], theirs, 'refund');
    expect(unknownAction).toMatchObject({ status: 404, body: { message: ErrorMessages.routeNotFound } });
  });
});
