import { createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { FAIL_POINT_EXIT_CODE, failPointEnv, exited } from '../support/fail-points';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/** "Approved within 90 s with the default settings" (RECONCILE_INTERVAL 60 s), with a margin for a busy CI machine. */
const WITHIN_MS = 90_000;

/**
 * No Pix is ever missed: a Pix whose callback the PSP lost (sandbox pay with `dropCallback`) is
 * found by the adapter's reconciliation with the PSP (GET /pix every RECONCILE_INTERVAL), with the
 * default settings, and applied once: one status change, one webhook.
 */
describe('reconciliation with the PSP', () => {
  describe('with the default settings (shared stack)', () => {
    const stack = sharedStack();
    const receiver = new WebhookReceiver();
    let webhookUrl: string;
    beforeAll(async () => {
      webhookUrl = await receiver.start();
    });
    afterAll(() => receiver.stop());

    it(
      'approves a payment whose callback the PSP lost within 90 s, with one payment.status_changed webhook',
      async () => {
        const store = await createStore(stack, 'Reconciled store');
        const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
          token: store.token,
          body: { amount: 31.41, webhookUrl },
        });
        const id = created.body.id;
        const paidAt = Date.now();
        const paid = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${id}/pay`, {
          token: store.token,
          body: { dropCallback: true },
        });
        expect(paid.status).toBe(200);
        // Nothing calls back: the payment waits for the next reconciliation.
        const read = await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, {
          token: store.token,
        });
        expect(read.body.status).toBe('pending');

        const changes = () =>
          receiver.received.filter((h) => h.json.event === 'payment.status_changed' && h.json.id === id);
        await eventually(
          async () => changes(),
          (hooks) => hooks.length > 0,
          WITHIN_MS,
        );
        expect(Date.now() - paidAt).toBeLessThan(WITHIN_MS);
        expect(changes()[0]?.json).toMatchObject({ status: 'approved', previousStatus: 'pending' });
        // Later reconciliations list the Pix again (their windows overlap): still one change.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(changes()).toHaveLength(1);
        expect(await statusChangedEvents(stack, id, 1)).toHaveLength(1);
      },
      2 * WITHIN_MS,
    );

    it('refuses a dropCallback that is not a boolean with its message', async () => {
      const client = await paymentsClient(stack);
      const payment = await client.create(5);
      const answer = await api<{ message: string }>(
        stack.gatewayUrl,
        'POST',
        `/public-api/v1/sandbox/payments/${payment.id}/pay`,
        { token: client.store.token, body: { dropCallback: 'yes' } },
      );
      expect(answer).toMatchObject({ status: 400, body: { message: 'dropCallback must be a boolean' } });
      expect((await client.get(payment.id)).status).toBe('pending');
    });
  });

  describe('with the adapter killed during a reconciliation (private stack)', () => {
    let stack: PrivateStack;
    beforeAll(async () => {
      stack = await startPrivateStack();
    });
    afterAll(() => stack.stop());

    it(
      'reads the window again after the restart and approves the payment within 90 s, once',
      async () => {
        const client = await paymentsClient(stack);
        const payment = await client.create(27.18);
        const [running] = stack.processesOf('pix-provider-adapter').slice(-1);
        if (!running) throw new Error('no adapter process');
        await stack.stopProcess(running);
        // This adapter exits in the middle of the first reconciliation that lists a Pix.
        const crashing = await stack.startService('pix-provider-adapter', failPointEnv('crash-during-reconciliation'));
        const paidAt = Date.now();
        const paid = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payment.id}/pay`, {
          token: client.store.token,
          body: { dropCallback: true },
        });
        expect(paid.status).toBe(200);
        expect(await exited(crashing)).toBe(FAIL_POINT_EXIT_CODE);
        expect((await client.get(payment.id)).status).toBe('pending');

        await stack.startService('pix-provider-adapter');
        await client.waitForStatus(payment.id, 'approved', WITHIN_MS - (Date.now() - paidAt));
        expect(Date.now() - paidAt).toBeLessThan(WITHIN_MS);
        const changes = await statusChangedEvents(stack, payment.id, 1);
        expect(changes.map((e) => [e.data.body.previousStatus, e.data.body.status])).toEqual([['pending', 'approved']]);
      },
      3 * WITHIN_MS,
    );
  });
});
