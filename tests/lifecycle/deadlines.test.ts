import { PlatformRefundReasons } from '@pix/contracts';
import { api, eventually } from '../support/api';
import { withDb, withPspDb } from '../support/db';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * Expiry and the automatic refund, with short PIX_CHARGE_TTL and REVIEW_TIMEOUT, run by TWO
 * payments replicas sharing the scheduled messages that carry the deadlines: every one happens
 * exactly once, and no charge the PSP was paid expires.
 */
describe('deadlines with two payments replicas', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({
      // No reconciliation within the test: only the read of a charge before its expiry finds a lost callback.
      env: { PIX_CHARGE_TTL: '4s', REVIEW_TIMEOUT: '3s', RECONCILE_INTERVAL: '1h' },
    });
    await stack.startService('payments');
    expect(stack.processesOf('payments')).toHaveLength(2);
  });
  afterAll(() => stack.stop());

  it('expires unpaid charges and refunds reviews once each', async () => {
    const client = await paymentsClient(stack);
    const unpaid = await Promise.all([10, 11, 12, 13].map((amount) => client.create(amount)));
    const reviewed = await Promise.all([20, 21, 22, 23].map((amount) => client.create(amount)));
    // Paid over the public sandbox route: an admin CLI process per pay can take longer than a charge lives on a loaded machine.
    const paid = await Promise.all(
      reviewed.map(async (p) => {
        const answer = await api<{ endToEndId: string; amount: number }>(
          stack.gatewayUrl,
          'POST',
          `/public-api/v1/sandbox/payments/${p.id}/pay`,
          { token: client.store.token, body: { amount: 5.55 } },
        );
        expect(answer.status).toBe(200);
        return answer.body;
      }),
    );
    for (const p of reviewed) await client.waitForStatus(p.id, 'review');

    for (const p of [...unpaid, ...reviewed]) await client.waitForStatus(p.id, 'not_approved', 20_000);

    for (const p of unpaid) {
      const events = await statusChangedEvents(stack, p.id, 1);
      expect(events.map((e) => [e.data.body.previousStatus, e.data.body.status])).toEqual([
        ['pending', 'not_approved'],
      ]);
    }
    for (const p of reviewed) {
      const events = await statusChangedEvents(stack, p.id, 2);
      expect(events.map((e) => [e.data.body.previousStatus, e.data.body.status])).toEqual([
        ['pending', 'review'],
        ['review', 'not_approved'],
      ]);
    }
    // The paid Pix of each goes back once: asked with the change, settled by the PSP's callback.
    for (const p of reviewed) {
      await eventually(
        () => client.get(p.id),
        (read) => read.refundedAmount === 5.55,
      );
    }
    await withPspDb(stack, async (db) => {
      for (const [i, p] of reviewed.entries()) {
        const refunds = await db.collection('sandbox_psp_refunds').find({ endToEndId: paid[i]?.endToEndId }).toArray();
        expect(refunds).toHaveLength(1);
        expect(refunds[0]).toMatchObject({ amountCents: 555, requests: 1, devolucao: { status: 'DEVOLVIDO' } });
        const stored = await withDb(stack.mongoAdminUrl!, (platform) =>
          platform.collection('payments').findOne({ _id: p.id as never }),
        );
        expect(stored?.refunds).toMatchObject([
          {
            pspRefundId: refunds[0]?.devolucao.id,
            origin: 'platform',
            reason: PlatformRefundReasons.reviewTimeout,
            status: 'succeeded',
            rtrId: refunds[0]?.devolucao.rtrId,
          },
        ]);
      }
    });
  });

  it('reads each charge before it expires: one paid at the PSP whose callback was lost is approved, once', async () => {
    const client = await paymentsClient(stack);
    const payments = await Promise.all([30, 31].map((amount) => client.create(amount)));
    for (const p of payments) {
      const answer = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${p.id}/pay`, {
        token: client.store.token,
        body: { dropCallback: true },
      });
      expect(answer.status).toBe(200);
    }
    expect((await client.get(payments[0]!.id)).status).toBe('pending');
    for (const p of payments) {
      await client.waitForStatus(p.id, 'approved', 20_000);
      const events = await statusChangedEvents(stack, p.id, 1);
      expect(events.map((e) => [e.data.body.previousStatus, e.data.body.status])).toEqual([['pending', 'approved']]);
    }
  });
});
