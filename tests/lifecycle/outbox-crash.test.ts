import { Subjects } from '@pix/contracts';
import { admin } from '../support/admin';
import { api, eventually } from '../support/api';
import { withDb } from '../support/db';
import { FAIL_POINT_EXIT_CODE, failPointEnv, exited } from '../support/fail-points';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * The outbox under a crash: payments dies between storing a status change and publishing its event
 * (and, second case, just after publishing it), at a fail point planted from outside
 * (tests/support/fail-point.js); after a restart the relay finds the dead writer silent, publishes
 * the messages it left in the payment from where its record says it had published, and the event is
 * on the PAYMENTS stream exactly once, the store's counters moved once.
 */
describe('outbox surviving a crash of payments', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack();
  });
  afterAll(() => stack.stop());

  it.each(['crash-before-publish', 'crash-after-publish'] as const)('%s: the event is published once', async (when) => {
    const client = await paymentsClient(stack);
    const [running] = stack.processesOf('payments').slice(-1);
    if (!running) throw new Error('no payments process');
    await stack.stopProcess(running);
    const crashing = await stack.startService('payments', failPointEnv(`${when}:payment.status_changed`));

    const payment = await client.create(30);
    await admin(stack, 'sandbox', 'pay', payment.id);
    expect(await exited(crashing)).toBe(FAIL_POINT_EXIT_CODE);

    // The change is stored with what it owes still in the payment, whatever reached the stream.
    const stored = () =>
      withDb(stack.mongoAdminUrl!, (db) => db.collection('payments').findOne({ _id: payment.id as never }));
    expect(await stored()).toMatchObject({ status: 'approved' });
    expect((await stored())?.outbox.map((m: { subject: string }) => m.subject)).toContain(
      Subjects.paymentEvent('payment.status_changed', false),
    );
    expect(await statusChangedEvents(stack, payment.id)).toHaveLength(when === 'crash-before-publish' ? 0 : 1);

    await stack.startService('payments');
    // The relay takes a writer for dead after three of its passes (5 s each) without a word.
    const events = await statusChangedEvents(stack, payment.id, 1, 45_000);
    expect(events).toHaveLength(1);
    expect(events[0]?.msgId).toBe(events[0]?.data.eventId);
    expect(events[0]?.data.body).toMatchObject({ status: 'approved', previousStatus: 'pending' });
    expect((await client.get(payment.id)).status).toBe('approved');
    const list = (status: string) =>
      api<{ total: number }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments?status=${status}`, {
        token: client.store.token,
      });
    // The counters' increments go with the event, each on its own stream.
    await eventually(list.bind(null, 'approved'), (res) => res.body.total === 1);
    expect((await list('pending')).body.total).toBe(0);
  });
});
