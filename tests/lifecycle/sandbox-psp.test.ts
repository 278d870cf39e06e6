import { SandboxMessages } from '@pix/contracts';
import { api, eventually } from '../support/api';
import { withPspDb } from '../support/db';
import { FAIL_POINT_EXIT_CODE, failPointEnv, exited } from '../support/fail-points';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';

const SANDBOX = '/public-api/v1/sandbox/payments';

/** The sandbox PSP's charge of a payment, with the Pix it received and its analysis, as the PSP's books hold it. */
async function chargeOf(stack: ReturnType<typeof sharedStack>, paymentId: string) {
  return withPspDb(stack, (db) =>
    db.collection('sandbox_psp_cobs').findOne({ _id: paymentId.replace(/-/g, '') as never }),
  );
}

/**
 * The sandbox PSP under retries and faults: each action is decided once per charge by a
 * conditional update of the charge, a retry answers what the first try did, and an action cut off
 * by the PSP's crash completes by itself when the PSP is back.
 */
describe('sandbox PSP under retries and faults', () => {
  describe('racing requests (shared stack)', () => {
    const stack = sharedStack();
    let client: Awaited<ReturnType<typeof paymentsClient>>;
    beforeAll(async () => {
      client = await paymentsClient(stack);
    });

    function act(id: string, action: string, body?: unknown) {
      return api<{ endToEndId?: string; amount?: number; message?: string }>(
        stack.gatewayUrl,
        'POST',
        `${SANDBOX}/${id}/${action}`,
        {
          token: client.store.token,
          ...(body === undefined ? {} : { body }),
        },
      );
    }

    it('pays a charge once however many pays race: one Pix, one endToEndId, one change', async () => {
      const payment = await client.create(33.3);
      const answers = await Promise.all(Array.from({ length: 8 }, () => act(payment.id, 'pay')));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      const ids = new Set(answers.map((a) => a.body.endToEndId));
      expect(ids.size).toBe(1);
      await client.waitForStatus(payment.id, 'approved');
      const charge = await chargeOf(stack, payment.id);
      expect(charge?.pix).toMatchObject({ endToEndId: [...ids][0], amountCents: 3330, held: false, notified: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const changes = await statusChangedEvents(stack, payment.id, 1);
      expect(changes.map((e) => e.data.body.status)).toEqual(['approved']);
    });

    it('lets one of racing pays of different amounts win and refuses the others', async () => {
      const payment = await client.create(20);
      const amounts = [20, 19, 21, 18, 22];
      const answers = await Promise.all(amounts.map((amount) => act(payment.id, 'pay', { amount })));
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      for (const lost of answers.filter((a) => a.status !== 200)) {
        expect(lost).toMatchObject({ status: 409, body: { message: SandboxMessages.chargePaidOtherwise } });
      }
      const charge = await chargeOf(stack, payment.id);
      expect(charge?.pix).toMatchObject({ amountCents: Math.round(Number(won[0]?.body.amount) * 100) });
    });

    it('ends an analysis once when clear and reject race', async () => {
      const payment = await client.create(11);
      expect((await act(payment.id, 'review')).status).toBe(200);
      await client.waitForStatus(payment.id, 'review');
      const answers = await Promise.all(
        ['clear', 'reject', 'clear', 'reject'].map((action) => act(payment.id, action)),
      );
      const analysis = (await chargeOf(stack, payment.id))?.analysis;
      expect(analysis?.outcome).toMatch(/^(LIBERADO|REJEITADO)$/);
      const winner = analysis?.outcome === 'LIBERADO' ? 'clear' : 'reject';
      answers.forEach((answer, i) => {
        const action = ['clear', 'reject', 'clear', 'reject'][i];
        if (action === winner) expect(answer.status).toBe(200);
        else expect(answer).toMatchObject({ status: 409, body: { message: SandboxMessages.analysisDecided } });
      });
      await client.waitForStatus(payment.id, winner === 'clear' ? 'approved' : 'not_approved');
    });
  });

  describe("the PSP's crash between the decision and the callback", () => {
    let stack: PrivateStack;
    beforeAll(async () => {
      // A short RPC timeout: the gateway gives up on the crashed adapter quickly.
      stack = await startPrivateStack({ env: { RPC_TIMEOUT: '3000' } });
    });
    afterAll(() => stack.stop());

    it('completes the payment when the PSP is back, and a retry answers the same Pix', async () => {
      const client = await paymentsClient(stack);
      const payment = await client.create(27.5);
      const [running] = stack.simulatorProcesses().slice(-1);
      if (!running) throw new Error('no PSP simulator process');
      await stack.stopProcess(running);
      const crashing = await stack.startPspSimulator(failPointEnv('crash-after-decision'));

      const cutOff = await api(stack.gatewayUrl, 'POST', `${SANDBOX}/${payment.id}/pay`, { token: client.store.token });
      expect(cutOff.status).toBe(503);
      expect(await exited(crashing)).toBe(FAIL_POINT_EXIT_CODE);
      const decided = (await chargeOf(stack, payment.id))?.pix;
      expect(decided).toMatchObject({ amountCents: 2750, notified: false });
      expect((await client.get(payment.id)).status).toBe('pending');

      // Nobody retries: the restarted PSP sends the callback the crash cut off.
      await stack.startPspSimulator();
      await client.waitForStatus(payment.id, 'approved');
      await eventually(
        () => chargeOf(stack, payment.id),
        (charge) => charge?.pix?.notified === true,
      );

      const retried = await api<{ endToEndId: string }>(stack.gatewayUrl, 'POST', `${SANDBOX}/${payment.id}/pay`, {
        token: client.store.token,
      });
      expect(retried.status).toBe(200);
      expect(retried.body.endToEndId).toBe(decided?.endToEndId);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const changes = await statusChangedEvents(stack, payment.id, 1);
      expect(changes.map((e) => e.data.body.status)).toEqual(['approved']);
      expect(changes[0]?.data.body.previousStatus).toBe('pending');
    });
  });
});
