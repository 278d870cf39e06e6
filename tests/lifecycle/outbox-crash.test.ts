import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { Subjects } from '@pix/contracts';
import { admin } from '../support/admin';
import { eventually } from '../support/api';
import { withDb } from '../support/db';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import type { Started } from '@pix/devstack';

function exited(proc: Started): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.child?.exitCode !== null && proc.child?.exitCode !== undefined) resolve(proc.child.exitCode);
    else proc.child?.once('exit', (code) => resolve(code));
  });
}

/**
 * The outbox under a crash: payments dies between storing a status change and publishing its event
 * (and, second case, between publishing and closing the write's intent); after a restart the
 * recovery sweep finds the open intent and the event is on the PAYMENTS stream exactly once.
 */
describe('outbox surviving a crash of payments', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack();
  });
  afterAll(() => stack.stop());

  it.each(['crash-before-publish', 'crash-after-publish'])('%s: the event is published once', async (when) => {
    const client = await paymentsClient(stack);
    const [running] = stack.processesOf('payments').slice(-1);
    if (!running) throw new Error('no payments process');
    await stack.stopProcess(running);
    const crashing = await stack.startService('payments', { OUTBOX_FAIL_POINT: `${when}:payment.status_changed` });

    const payment = await client.create(30);
    await admin(stack.natsUrl, 'sandbox', 'pay', payment.id);
    expect(await exited(crashing)).toBe(86);

    // The change is stored (and its intent still open), whatever reached the stream.
    const openIntents = () =>
      withDb(stack.mongoUrl, (db) => db.collection('payment_intents').find({ paymentId: payment.id }).toArray());
    const stored = await withDb(stack.mongoUrl, (db) =>
      db.collection('payments').findOne({ _id: payment.id as never }),
    );
    expect(stored?.status).toBe('approved');
    expect(await openIntents()).toHaveLength(1);
    expect(await statusChangedEvents(stack.natsUrl, payment.id)).toHaveLength(when === 'crash-before-publish' ? 0 : 1);

    await stack.startService('payments');
    // The sweep takes intents a few seconds old (younger ones may still be in their writer's hands).
    await eventually(openIntents, (intents) => intents.length === 0, 30_000);
    const events = await statusChangedEvents(stack.natsUrl, payment.id, 1);
    expect(events).toHaveLength(1);
    expect(events[0]?.msgId).toBe(events[0]?.data.eventId);
    expect(events[0]?.data.body).toMatchObject({ status: 'approved', previousStatus: 'pending' });
    expect((await client.get(payment.id)).status).toBe('approved');
  });

  it('drops the leftover intent of a write that lost, though the payment moved past its revision', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(31);
    // What a writer leaves when its claim on revision 0 came after the create had let it go, its
    // insert found the payment there, and the database went away before it could remove its intent.
    const forged = `evt_${randomUUID().replace(/-/g, '')}`;
    const intents = (db: Db) => db.collection<{ _id: string } & Record<string, unknown>>('payment_intents');
    await withDb(stack.mongoUrl, (db) =>
      intents(db).insertOne({
        _id: `${payment.id}:0`,
        paymentId: payment.id,
        rev: 0,
        at: new Date(Date.now() - 60_000),
        writer: 'a-writer-whose-write-lost',
        open: true,
        messages: [
          {
            subject: Subjects.paymentEvent('status_changed'),
            msgId: forged,
            body: {
              eventId: forged,
              occurredAt: new Date().toISOString(),
              sequence: 2,
              body: { ...payment, event: 'payment.status_changed', status: 'approved', previousStatus: 'pending' },
            },
          },
        ],
      }),
    );
    await eventually(
      () => withDb(stack.mongoUrl, (db) => intents(db).countDocuments({ paymentId: payment.id })),
      (open) => open === 0,
      30_000,
    );
    expect(await statusChangedEvents(stack.natsUrl, payment.id)).toEqual([]);
    expect((await client.get(payment.id)).status).toBe('pending');
  });
});
