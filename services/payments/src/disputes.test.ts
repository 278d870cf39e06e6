import { randomUUID } from 'node:crypto';
import { DomainError, Subjects, type DefenseCommand } from '@pix/contracts';
import { onDue } from './deadlines';
import { defendDispute } from './dispute-flows';
import type { PaymentDoc } from './model';
import { onPixEvent } from './pix-events';
import { toPayment } from './presenter';
import { createRefund } from './refunds';
import { dueIn, eventsIn, flowDeps, given } from './testing/flows';

const E2E = 'E12345678202501011200abcdefghijk';
const HOUR = 3_600_000;
const scope = { storeId: 'store-1', livemode: false };

async function approved(flows: ReturnType<typeof flowDeps>) {
  return given(flows, {
    status: 'approved',
    amountCents: 5000,
    paidEndToEndId: E2E,
    paidAmountCents: 5000,
    paidAt: new Date(),
    eventSeq: 2,
    webhookUrl: 'https://merchant.example/hooks',
  });
}

/** The adapter's fact of an infraction against the payment's Pix. */
function infraction(doc: PaymentDoc, extra: Record<string, unknown> = {}) {
  return {
    txid: doc.txid,
    endToEndId: E2E,
    pspDisputeId: 'INF1',
    reason: 'Não reconheço esta compra.',
    kind: 'golpe',
    amountCents: 3000,
    deadlineAt: new Date(Date.now() + 72 * HOUR).toISOString(),
    openedAt: new Date().toISOString(),
    livemode: false,
    ...extra,
  };
}

const defenses = (flows: ReturnType<typeof flowDeps>) =>
  flows.published.filter((m) => m.subject === Subjects.pixCommand('defense')).map((m) => m.body as DefenseCommand);

describe('a dispute (MED infraction) of a payment', () => {
  it('opens once with its webhook and reminders at 48, 24 and 6 hours, however often it is told', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    const fact = infraction(doc);
    await onPixEvent(flows.deps, Subjects.pixDisputeOpened, fact);
    await onPixEvent(flows.deps, Subjects.pixDisputeOpened, fact);

    const stored = await flows.store.byId(doc._id);
    expect(toPayment(stored!).dispute).toEqual({
      status: 'open',
      reason: 'Não reconheço esta compra.',
      kind: 'golpe',
      amountAtRisk: 30,
      openedAt: fact.openedAt,
      deadlineAt: fact.deadlineAt,
      defense: null,
      decision: null,
      closedAt: null,
    });
    const events = eventsIn(flows.published);
    expect(events.map((e) => [e.sequence, e.body.event])).toEqual([[3, 'payment.dispute_opened']]);
    expect(events[0]?.body).toMatchObject({
      paymentId: doc._id,
      storeId: 'store-1',
      livemode: false,
      amountAtRisk: 30,
    });
    const reminders = dueIn(flows.published).map((d) => (new Date(fact.deadlineAt).getTime() - d.at.getTime()) / HOUR);
    expect(reminders).toEqual([48, 24, 6]);
  });

  it('the payment without a dispute shows none', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    expect('dispute' in toPayment(doc)).toBe(false);
  });

  it('refuses a refund while open; a defence is taken once and forwarded once; the decision closes it once', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(flows.deps, Subjects.pixDisputeOpened, infraction(doc));

    const refund = createRefund(flows.deps, {
      ...scope,
      paymentId: doc._id,
      refundId: randomUUID(),
      input: { amountCents: null, reason: null },
    });
    await expect(refund).rejects.toEqual(new DomainError('refund_dispute_open'));

    const request = { ...scope, paymentId: doc._id, input: { text: 'O cliente recebeu o produto.' } };
    const first = await defendDispute(flows.deps, request);
    expect(first.dispute?.defense).toEqual({ text: 'O cliente recebeu o produto.', sentAt: expect.any(String) });
    const again = await defendDispute(flows.deps, request);
    expect(again.dispute).toEqual(first.dispute);
    await expect(defendDispute(flows.deps, { ...request, input: { text: 'Outra defesa.' } })).rejects.toEqual(
      new DomainError('dispute_defended'),
    );
    expect(defenses(flows)).toEqual([
      expect.objectContaining({
        paymentId: doc._id,
        pspDisputeId: 'INF1',
        text: 'O cliente recebeu o produto.',
        attempt: 1,
      }),
    ]);

    const decidedAt = new Date().toISOString();
    const closed = infraction(doc, { decision: 'rejected', decidedAt });
    await onPixEvent(flows.deps, Subjects.pixDisputeClosed, closed);
    await onPixEvent(flows.deps, Subjects.pixDisputeClosed, closed);
    const stored = await flows.store.byId(doc._id);
    expect(toPayment(stored!).dispute).toMatchObject({
      status: 'closed',
      decision: 'rejected',
      closedAt: decidedAt,
    });
    expect(eventsIn(flows.published).map((e) => e.body.event)).toEqual([
      'payment.dispute_opened',
      'payment.dispute_closed',
    ]);
    await expect(defendDispute(flows.deps, request)).rejects.toEqual(new DomainError('dispute_not_open'));
  });

  it('told only once decided: opened then closed in one write', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(
      flows.deps,
      Subjects.pixDisputeClosed,
      infraction(doc, { decision: 'accepted', decidedAt: new Date().toISOString() }),
    );
    expect(eventsIn(flows.published).map((e) => [e.sequence, e.body.event])).toEqual([
      [3, 'payment.dispute_opened'],
      [4, 'payment.dispute_closed'],
    ]);
    expect(dueIn(flows.published)).toEqual([]);
  });

  it('a deadline already past is recorded: no reminder, no defence', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(
      flows.deps,
      Subjects.pixDisputeOpened,
      infraction(doc, { deadlineAt: new Date(Date.now() - HOUR).toISOString() }),
    );
    const stored = await flows.store.byId(doc._id);
    expect(stored?.dispute?.status).toBe('open');
    expect(dueIn(flows.published)).toEqual([]);
    const request = { ...scope, paymentId: doc._id, input: { text: 'Tarde demais.' } };
    await expect(defendDispute(flows.deps, request)).rejects.toEqual(new DomainError('dispute_deadline_passed'));
  });

  it('a reminder falls due: its webhook once, none after a defence', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(flows.deps, Subjects.pixDisputeOpened, infraction(doc));
    const [first, second] = dueIn(flows.published);
    flows.published.length = 0;
    await onDue(flows.deps, first!.body);
    await onDue(flows.deps, first!.body);
    const reminders = eventsIn(flows.published);
    expect(reminders.map((e) => e.body)).toEqual([
      expect.objectContaining({ event: 'payment.dispute_reminder', hoursLeft: 48 }),
    ]);
    await defendDispute(flows.deps, { ...scope, paymentId: doc._id, input: { text: 'Defesa.' } });
    flows.published.length = 0;
    await onDue(flows.deps, second!.body);
    expect(eventsIn(flows.published)).toEqual([]);
  });

  it('a fact of the other mode or an unknown charge changes nothing', async () => {
    const flows = flowDeps();
    const doc = await approved(flows);
    await onPixEvent(flows.deps, Subjects.pixDisputeOpened, infraction(doc, { livemode: true }));
    await onPixEvent(
      flows.deps,
      Subjects.pixDisputeOpened,
      infraction(doc, { txid: 'unknowntxid0000000000000000000000' }),
    );
    expect((await flows.store.byId(doc._id))?.dispute ?? null).toBeNull();
    expect(flows.published).toEqual([]);
  });
});
