import { Streams, Subjects } from '@pix/contracts';
import type { Started } from '@pix/devstack';
import { api, eventually } from '../support/api';
import { withPspDb } from '../support/db';
import { FAIL_POINT_EXIT_CODE, failPointEnv, exited } from '../support/fail-points';
import { paymentsClient } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { streamMessages } from '../support/streams';

const SANDBOX = '/public-api/v1/sandbox/payments';

/** The sandbox PSP's devoluções of a Pix, as its books hold them. */
function atPsp(stack: PrivateStack, endToEndId: string) {
  return withPspDb(stack, (db) =>
    db
      .collection<{ requests: number; devolucao: { status: string } }>('sandbox_psp_refunds')
      .find({ endToEndId })
      .toArray(),
  );
}

/**
 * Money going back through crashes, each at the worst moment, on a stack of its own: a late Pix's
 * return is made once however its fact is redelivered and whoever restarts, and a refund reaches
 * the PSP as one devolução, sent once, when the adapter dies between the PSP taking it and answering.
 */
describe('refunds through crashes', () => {
  let stack: PrivateStack;
  beforeAll(async () => {
    stack = await startPrivateStack({ env: { RPC_TIMEOUT: '3000' } });
  });
  afterAll(() => stack.stop());

  async function replace(name: 'payments' | 'pix-provider-adapter', env: NodeJS.ProcessEnv): Promise<Started> {
    const [running] = stack.processesOf(name).slice(-1);
    if (!running) throw new Error(`no ${name} process`);
    await stack.stopProcess(running);
    return stack.startService(name, env, stack.ports.ops[name]);
  }

  it("returns a late Pix once when payments dies after the return's write, before the fact's ack", async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(31);
    const pay = await api(stack.gatewayUrl, 'POST', `${SANDBOX}/${payment.id}/pay`, { token: client.store.token });
    expect(pay.status).toBe(200);
    await client.waitForStatus(payment.id, 'approved');

    // payments publishes the return's refund.created and dies before it acks the late Pix's fact,
    // which JetStream then hands to the payments started after it.
    const crashing = await replace('payments', failPointEnv('crash-after-publish:refund.created'));
    const late = await api<{ endToEndId: string }>(stack.gatewayUrl, 'POST', `${SANDBOX}/${payment.id}/pay`, {
      token: client.store.token,
      body: { late: true },
    });
    expect(late.status).toBe(200);
    expect(await exited(crashing)).toBe(FAIL_POINT_EXIT_CODE);
    await stack.startService('payments', {}, stack.ports.ops.payments);

    const refunds = await eventually(
      async () =>
        (
          await api<{ items: { endToEndId: string; status: string; origin: string }[] }>(
            stack.gatewayUrl,
            'GET',
            `/public-api/v1/payments/${payment.id}/refunds`,
            { token: client.store.token },
          )
        ).body.items,
      (items) => items[0]?.status === 'succeeded',
      30_000,
    );
    expect(refunds.map((r) => [r.endToEndId, r.origin])).toEqual([[late.body.endToEndId, 'platform']]);
    // One return at the PSP, asked once; one refund.created on PAYMENTS; the payment as it was.
    expect((await atPsp(stack, late.body.endToEndId)).map((r) => [r.requests, r.devolucao.status])).toEqual([
      [1, 'DEVOLVIDO'],
    ]);
    const created = await streamMessages<{ paymentId: string }>(
      stack,
      Streams.payments.name,
      Subjects.paymentEventsOfType('refund.created'),
    );
    expect(created.filter((m) => m.data.paymentId === payment.id)).toHaveLength(1);
    expect(await client.get(payment.id)).toMatchObject({ status: 'approved', refundedAmount: 0 });
  }, 90_000);

  it('sends a refund once when the adapter dies after the PSP took it, before it answered', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(44);
    const paid = await api<{ endToEndId: string }>(stack.gatewayUrl, 'POST', `${SANDBOX}/${payment.id}/pay`, {
      token: client.store.token,
    });
    await client.waitForStatus(payment.id, 'approved');

    const crashing = await replace('pix-provider-adapter', failPointEnv('crash-after-refund-taken'));
    const asked = await api<{ id: string }>(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${payment.id}/refunds`, {
      token: client.store.token,
      body: { amount: 4 },
    });
    expect(asked.status).toBe(200);
    expect(await exited(crashing)).toBe(FAIL_POINT_EXIT_CODE);
    // Taken by the PSP, not yet answered, nor settled: the command waits unacked.
    expect((await atPsp(stack, paid.body.endToEndId)).map((r) => r.requests)).toEqual([1]);

    await stack.startService('pix-provider-adapter', {}, stack.ports.ops['pix-provider-adapter']);
    await eventually(
      () => client.get(payment.id),
      (p) => p.refundedAmount === 4,
      30_000,
    );
    // The restarted adapter read the devolução back: no second PUT reached the PSP.
    expect((await atPsp(stack, paid.body.endToEndId)).map((r) => [r.requests, r.devolucao.status])).toEqual([
      [1, 'DEVOLVIDO'],
    ]);
  }, 90_000);
});
