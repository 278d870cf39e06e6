import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  AdapterRpc,
  Subjects,
  txidFor,
  type CancelCommand,
  type PaymentEvent,
  type RefundCommand,
  type RpcParsedRequest,
} from '@pix/contracts';
import { createLogger } from '@pix/observability';
import type { Config } from '../config';
import type { DueMessage } from '../outbox';
import type { OutboxMessage, PaymentDoc, PaymentState, RefundRecord } from '../model';
import { InMemoryPayments } from './in-memory-payments';

/** The settings the flows read; the rest of Config is the process's business. */
export const testConfig = {
  PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
  PIX_CHARGE_TTL: 24 * 60 * 60 * 1000,
  REVIEW_TIMEOUT: 30 * 60 * 1000,
  PSP_TIMEOUT: 3000,
} as Config;

/**
 * The adapter as payments calls it over NATS (AdapterRpc), answering from memory: charges are taken
 * unless `reachable` is false (then the call fails as with no adapter); a charge read finds the Pix
 * set in `pixAtPsp` (by txid), none otherwise.
 */
export class FakeAdapter {
  readonly charges: RpcParsedRequest<typeof AdapterRpc.createCharge>[] = [];
  readonly reads: string[] = [];
  readonly pixAtPsp = new Map<string, number>();
  reachable = true;

  readonly nc = {
    request: async (subject: string, data: string) => {
      if (!this.reachable) throw new Error('503 no responders');
      const reply = this.answer(subject, JSON.parse(data));
      return { json: () => ({ ok: true, data: reply }) };
    },
  } as unknown as NatsConnection;

  private answer(subject: string, request: unknown): unknown {
    if (subject === AdapterRpc.createCharge.subject) {
      const charge = AdapterRpc.createCharge.request.parse(request);
      this.charges.push(charge);
      return { txid: charge.txid, location: `psp.example/${charge.txid}`, qrCopyPaste: `qr-of-${charge.txid}` };
    }
    if (subject === AdapterRpc.readCharge.subject) {
      const { txid } = AdapterRpc.readCharge.request.parse(request);
      this.reads.push(txid);
      const pixReceived = this.pixAtPsp.get(txid) ?? 0;
      return { status: pixReceived > 0 ? 'concluded' : 'active', pixReceived };
    }
    throw new Error(`no fake for ${subject}`);
  }
}

/** What the flows are given, over an in-memory store and a fake adapter; `published` is everything published. */
export function flowDeps() {
  const published: OutboxMessage[] = [];
  const publish = async (messages: OutboxMessage[]) => void published.push(...messages);
  const store = new InMemoryPayments(publish);
  const adapter = new FakeAdapter();
  const deps = {
    nc: adapter.nc,
    config: testConfig,
    logger: createLogger('test', 'silent'),
    store,
    publish,
  };
  return { deps, store, adapter, published };
}

/** The payment events among published messages, in publish order. */
export function eventsIn(published: OutboxMessage[]): PaymentEvent[] {
  return published.filter((m) => m.subject.startsWith('payments.events.')).map((m) => m.body as PaymentEvent);
}

/** The commands to the PSP among published messages: refunds to send, charges to remove. */
export function commandsIn(published: OutboxMessage[]): {
  refunds: RefundCommand[];
  cancels: CancelCommand[];
} {
  const of = (kind: 'refund' | 'cancel') =>
    published.filter((m) => m.subject === Subjects.pixCommand(kind)).map((m) => m.body);
  return { refunds: of('refund') as RefundCommand[], cancels: of('cancel') as CancelCommand[] };
}

/** The scheduled messages (deadlines, retries) among published messages. */
export function dueIn(published: OutboxMessage[]): { body: DueMessage; at: Date }[] {
  return published.flatMap((m) => (m.schedule ? [{ body: m.body as DueMessage, at: m.schedule.at }] : []));
}

/** A payment as create stores it, pending with its charge at the PSP; `fields` change any of it. */
export function paymentDoc(fields: Partial<PaymentState> = {}): PaymentState {
  const id = fields._id ?? randomUUID();
  const createdAt = new Date();
  return {
    _id: id,
    txid: txidFor(id),
    storeId: 'store-1',
    status: 'pending',
    amountCents: 1000,
    email: null,
    observation: null,
    webhookUrl: null,
    isPublic: true,
    createdAt,
    qrCodeUrl: `http://127.0.0.1:8080/public-api/v1/qrcodes/${id}.png`,
    qrCopyPaste: 'qr',
    chargeCreated: true,
    expiresAt: new Date(createdAt.getTime() + testConfig.PIX_CHARGE_TTL),
    paidEndToEndId: null,
    paidAmountCents: null,
    paidAt: null,
    deadlineAt: null,
    refundReason: null,
    refunds: [],
    cancelledAt: null,
    eventSeq: 1,
    rev: 1,
    ...fields,
  };
}

/** Stores `doc` as an earlier write would have, and forgets what that published. */
export async function given(
  flows: ReturnType<typeof flowDeps>,
  fields: Partial<PaymentState> = {},
): Promise<PaymentDoc> {
  const doc = paymentDoc(fields);
  if ((await flows.store.insert(doc, [])) !== 'created') throw new Error(`payment ${doc._id} exists`);
  flows.published.length = 0;
  const stored = await flows.store.byId(doc._id);
  if (!stored) throw new Error('just inserted');
  return stored;
}

/** A refund record of a payment, pending by default; `fields` change any of it. */
export function refundRecord(fields: Partial<RefundRecord> = {}): RefundRecord {
  return {
    id: randomUUID(),
    pspRefundId: 'devlegacy',
    endToEndId: 'E1',
    amountCents: 1000,
    status: 'pending',
    reason: null,
    origin: 'platform',
    createdAt: new Date(),
    settledAt: null,
    failureReason: null,
    rtrId: null,
    ...fields,
  };
}
