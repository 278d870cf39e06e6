import { Subjects, type CancelCommand, type RefundCommand } from '@pix/contracts';
import type { JsMsg } from '@pix/messaging';
import { capturePublished } from '../../../libs/messaging/src/testing/published';
import { Counter, createLogger } from '@pix/observability';
import {
  PspRefusal,
  type ChargeRemoval,
  type PixProvider,
  type RefundAtPsp,
  type RefundInput,
} from './providers/provider';
import { PspCommands } from './psp-commands';

const refund: RefundCommand = {
  txid: 't'.repeat(32),
  attempt: 1,
  livemode: false,
  paymentId: 'p1',
  refundId: 'r1',
  pspRefundId: `${'t'.repeat(32)}000`,
  endToEndId: 'E1',
  amountCents: 1500,
  description: 'Troca',
  accepted: false,
};
const cancel: CancelCommand = { txid: 't'.repeat(32), attempt: 1, livemode: false, paymentId: 'p1' };

const atPsp = (status: RefundAtPsp['status']): RefundAtPsp => ({
  pspRefundId: refund.pspRefundId,
  rtrId: 'D1',
  status,
  settledAt: status === 'processing' ? null : '2026-01-01T00:00:00.000Z',
  failureReason: status === 'failed' ? 'Conta encerrada' : null,
  amountCents: refund.amountCents,
  nature: 'other',
});

/** A PSP whose answers each test sets; it records what it was asked. */
class FakePsp implements PixProvider {
  readonly calls: string[] = [];
  sendAnswer: () => Promise<RefundAtPsp> = async () => atPsp('processing');
  readAnswer: () => Promise<RefundAtPsp | null> = async () => null;
  removeAnswer: () => Promise<ChargeRemoval> = async () => 'removed';

  createCharge(): never {
    throw new Error('not here');
  }
  readCharge(): never {
    throw new Error('not here');
  }
  listReceivedPix(): never {
    throw new Error('not here');
  }
  readPix(): never {
    throw new Error('not here');
  }
  sendRefund(input: RefundInput): Promise<RefundAtPsp> {
    this.calls.push(`send ${input.pspRefundId} ${input.amountCents}`);
    return this.sendAnswer();
  }
  readRefund(_e2e: string, pspRefundId: string): Promise<RefundAtPsp | null> {
    this.calls.push(`read ${pspRefundId}`);
    return this.readAnswer();
  }
  removeCharge(txid: string): Promise<ChargeRemoval> {
    this.calls.push(`remove ${txid}`);
    return this.removeAnswer();
  }
}

function message(command: RefundCommand | CancelCommand, kind: 'refund' | 'cancel', deliveryCount = 1): JsMsg {
  return { subject: Subjects.pixCommand(kind), json: () => command, info: { deliveryCount } } as unknown as JsMsg;
}

/** The test connection's PSP is the fake; no live connection is open. */
function commands() {
  const psp = new FakePsp();
  const { js, published } = capturePublished();
  const outcomes = new Counter({
    name: 'pix_commands_total',
    help: 'test',
    labelNames: ['connection', 'kind', 'outcome'],
    registers: [],
  });
  const providerOf = (livemode: boolean) => {
    if (livemode) throw Object.assign(new Error('no live PSP connection is open'), { transient: true });
    return psp;
  };
  const handler = new PspCommands(providerOf, js, createLogger('test', 'silent'), outcomes);
  return { psp, published, outcomes, handler };
}

describe("payments' commands to the PSP", () => {
  it('a refund, first try: sent without a read; processing at the PSP: read back later as accepted', async () => {
    const { psp, published, handler } = commands();
    expect(await handler.handle(message(refund, 'refund'))).toEqual({ ack: true });
    expect(psp.calls).toEqual([`send ${refund.pspRefundId} 1500`]);
    expect(published).toEqual([
      {
        subject: Subjects.pixCommandSchedule('refund', refund.pspRefundId),
        body: expect.objectContaining({ pspRefundId: refund.pspRefundId, attempt: 2, accepted: true }),
        id: `refund:${refund.pspRefundId}:2`,
        at: expect.any(Date),
        target: Subjects.pixCommand('refund'),
      },
    ]);
    expect(published[0]!.at!.getTime()).toBeGreaterThan(Date.now() + 4000);
  });

  it('a read-back that finds it settled publishes the fact, once per devolução and outcome', async () => {
    const { psp, published, handler } = commands();
    psp.readAnswer = async () => atPsp('refunded');
    await handler.handle(message({ ...refund, attempt: 2, accepted: true }, 'refund'));
    expect(psp.calls).toEqual([`read ${refund.pspRefundId}`]);
    expect(published).toEqual([
      {
        subject: Subjects.pixRefunded,
        body: {
          txid: refund.txid,
          endToEndId: 'E1',
          pspRefundId: refund.pspRefundId,
          rtrId: 'D1',
          settledAt: '2026-01-01T00:00:00.000Z',
          failureReason: null,
          amountCents: 1500,
          nature: 'other',
          livemode: false,
        },
        id: `E1:devolucao:${refund.pspRefundId}:refunded`,
        at: undefined,
        target: undefined,
      },
    ]);
  });

  it('redelivered (its handler died mid-way): read first, and not sent when the PSP has it', async () => {
    const { psp, published, handler } = commands();
    psp.readAnswer = async () => atPsp('failed');
    await handler.handle(message(refund, 'refund', 2));
    expect(psp.calls).toEqual([`read ${refund.pspRefundId}`]);
    expect(published.map((p) => [p.subject, p.body.failureReason])).toEqual([
      [Subjects.pixRefundFailed, 'Conta encerrada'],
    ]);
  });

  it('a PSP that times out or fails: tried again later, and that try reads before it sends', async () => {
    const { psp, published, handler } = commands();
    psp.sendAnswer = () => Promise.reject(new Error('timeout'));
    await handler.handle(message(refund, 'refund'));
    const [retry] = published;
    expect(retry).toMatchObject({ body: { attempt: 2, accepted: false }, target: Subjects.pixCommand('refund') });

    psp.calls.length = 0;
    published.length = 0;
    psp.readAnswer = async () => null;
    psp.sendAnswer = async () => atPsp('refunded');
    await handler.handle(message(retry!.body as RefundCommand, 'refund'));
    expect(psp.calls).toEqual([`read ${refund.pspRefundId}`, `send ${refund.pspRefundId} 1500`]);
    expect(published.map((p) => p.subject)).toEqual([Subjects.pixRefunded]);
  });

  it("refused by the PSP (4xx): failed, the PSP's detail its motivo", async () => {
    const { published, psp, handler } = commands();
    psp.sendAnswer = () => Promise.reject(new PspRefusal(400, 'valor acima do disponível'));
    await handler.handle(message(refund, 'refund'));
    expect(published).toEqual([
      expect.objectContaining({
        subject: Subjects.pixRefundFailed,
        body: expect.objectContaining({ failureReason: 'valor acima do disponível', rtrId: null }),
      }),
    ]);
  });

  it('refused when sent again, but there at the PSP after all: taken as it is there', async () => {
    const { published, psp, handler } = commands();
    let reads = 0;
    psp.readAnswer = async () => (++reads === 1 ? null : atPsp('refunded'));
    psp.sendAnswer = () => Promise.reject(new PspRefusal(409, 'devolução já existe'));
    await handler.handle(message({ ...refund, attempt: 3 }, 'refund'));
    expect(psp.calls).toEqual([
      `read ${refund.pspRefundId}`,
      `send ${refund.pspRefundId} 1500`,
      `read ${refund.pspRefundId}`,
    ]);
    expect(published.map((p) => p.subject)).toEqual([Subjects.pixRefunded]);
  });

  it('a cancel removes the charge; a PSP away has it tried again later; nothing to remove is done', async () => {
    const { psp, published, handler } = commands();
    await handler.handle(message(cancel, 'cancel'));
    psp.removeAnswer = async () => 'not_active';
    await handler.handle(message(cancel, 'cancel'));
    expect(published).toEqual([]);
    psp.removeAnswer = () => Promise.reject(new Error('503'));
    await handler.handle(message(cancel, 'cancel'));
    expect(published).toEqual([
      expect.objectContaining({
        subject: Subjects.pixCommandSchedule('cancel', cancel.txid),
        body: expect.objectContaining({ attempt: 2 }),
        target: Subjects.pixCommand('cancel'),
      }),
    ]);
    expect(psp.calls).toEqual([`remove ${cancel.txid}`, `remove ${cancel.txid}`, `remove ${cancel.txid}`]);
  });

  it('a live command goes to the live connection only: with none open, it waits and the test PSP hears nothing', async () => {
    const { psp, published, outcomes, handler } = commands();
    await handler.handle(message({ ...refund, livemode: true }, 'refund'));
    await handler.handle(message({ ...cancel, livemode: true }, 'cancel'));
    expect(psp.calls).toEqual([]);
    expect(published.map((p) => [p.subject, p.body.attempt, p.body.livemode])).toEqual([
      [Subjects.pixCommandSchedule('refund', refund.pspRefundId), 2, true],
      [Subjects.pixCommandSchedule('cancel', cancel.txid), 2, true],
    ]);
    const counted = (await outcomes.get()).values.map((v) => v.labels);
    expect(counted).toEqual([
      { connection: 'live', kind: 'refund', outcome: 'retried' },
      { connection: 'live', kind: 'cancel', outcome: 'retried' },
    ]);
  });

  it('a malformed command, or one of no known kind, is dropped', async () => {
    const { psp, published, handler } = commands();
    expect(await handler.handle(message({ txid: 'x' } as never, 'refund'))).toEqual({ ack: true });
    const other = {
      subject: 'pix.commands.run.other',
      json: () => refund,
      info: { deliveryCount: 1 },
    } as unknown as JsMsg;
    expect(await handler.handle(other)).toEqual({ ack: true });
    expect([psp.calls, published]).toEqual([[], []]);
  });
});
