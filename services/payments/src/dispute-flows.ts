import {
  centsToBrl,
  DomainError,
  modeName,
  OPEN_DISPUTES_LIST_MAX,
  PixDisputeEventSchema,
  type DisputeDefenseInput,
  type OpenDisputeList,
  type Payment,
} from '@pix/contracts';
import type { HandlerOutcome } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { defenseChange, disputeChange, reminderChange, toDispute, type DisputeRecord } from './disputes';
import { ofPaymentsMode } from './fact-mode';
import { disputeFacts } from './metrics';
import type { PaymentDoc } from './model';
import type { PaymentStorage, StoreScope } from './payment-storage';
import { toPayment } from './presenter';

export interface DisputeDeps {
  logger: Logger;
  store: PaymentStorage;
}

const ACK: HandlerOutcome = { ack: true };

/**
 * The PSP told of an infraction against a Pix of a payment (pix.events.dispute_opened) or of its
 * decision (pix.events.dispute_closed): the payment's dispute opens or closes in one write with its
 * webhook (disputes.ts), once however often the fact is told. A fact for a charge the platform does
 * not know, or of the other mode's connection, is logged and counted, never applied.
 */
export async function onDisputeFact(deps: DisputeDeps, raw: unknown): Promise<HandlerOutcome> {
  const parsed = PixDisputeEventSchema.safeParse(raw);
  if (!parsed.success) {
    deps.logger.error({ issues: parsed.error.issues }, 'malformed dispute fact; dropped');
    return ACK;
  }
  const fact = parsed.data;
  const line = { txid: fact.txid, endToEndId: fact.endToEndId, pspDisputeId: fact.pspDisputeId };
  const seen = await deps.store.byTxid(fact.txid);
  if (!seen) {
    disputeFacts.inc({ outcome: 'unknown_charge' });
    deps.logger.error(
      { ...line, connection: modeName(fact.livemode), amountCents: fact.amountCents },
      'infraction against a charge the platform does not know; needs an operator',
    );
    return ACK;
  }
  if (!ofPaymentsMode(seen, fact, deps.logger)) return ACK;
  const now = new Date();
  const result = await deps.store.write(seen._id, (doc) => disputeChange(doc, fact, now), seen);
  if (!result.written) {
    if (result.reason === 'another_open') {
      disputeFacts.inc({ outcome: 'another_open' });
      deps.logger.error(
        { ...line, paymentId: seen._id, open: seen.dispute?.pspDisputeId },
        'a second infraction against a payment whose dispute is open; left to an operator',
      );
    }
    return ACK;
  }
  const dispute = result.doc.dispute as DisputeRecord;
  const told = { ...line, paymentId: seen._id, status: dispute.status, decision: dispute.decision };
  disputeFacts.inc({ outcome: dispute.status === 'open' ? 'opened' : 'closed' });
  if (dispute.status === 'open' && dispute.deadlineAt <= now) {
    // Recorded as the PSP says: the merchant can no longer answer it, and should know at once.
    disputeFacts.inc({ outcome: 'past_deadline' });
    deps.logger.warn(
      { ...told, deadlineAt: dispute.deadlineAt },
      'dispute opened with its deadline already past; recorded, no defence possible',
    );
  } else deps.logger.warn(told, 'dispute of a payment recorded, as the PSP told it');
  return ACK;
}

/** The answer of a refused defence: its domain error. */
const DEFENSE_REFUSALS = ['dispute_not_open', 'dispute_deadline_passed', 'dispute_defended'] as const;

/**
 * The merchant's defence of a store's payment's open dispute (the public API, the dashboard):
 * recorded with its command to the PSP in one write (disputes.ts). A retry with the same text
 * answers the payment as it is and sends nothing again.
 */
export async function defendDispute(
  deps: DisputeDeps,
  request: StoreScope & { paymentId: string; input: DisputeDefenseInput },
): Promise<Payment> {
  const seen = await deps.store.forStore(request, request.paymentId);
  if (!seen) throw new DomainError('payment_not_found');
  const now = new Date();
  const result = await deps.store.write(seen._id, (doc) => defenseChange(doc, request.input.text, now), seen);
  if (result.written) {
    deps.logger.info(
      { paymentId: seen._id, pspDisputeId: result.doc.dispute?.pspDisputeId },
      'dispute defence recorded; forwarded to the PSP',
    );
    return toPayment(result.doc);
  }
  if (!result.doc) throw new DomainError('payment_not_found');
  if (result.reason === 'same') return toPayment(result.doc);
  const refusal = DEFENSE_REFUSALS.find((code) => code === result.reason);
  throw new DomainError(refusal ?? 'payment_not_found');
}

/** A dispute reminder fell due (a scheduled message at `at`): its webhook, once. */
export async function onDisputeReminder(deps: DisputeDeps, doc: PaymentDoc, at: Date): Promise<HandlerOutcome> {
  const result = await deps.store.write(doc._id, (current) => reminderChange(current, at), doc);
  if (result.written) {
    deps.logger.info({ paymentId: doc._id, at }, 'dispute reminder sent');
  }
  return ACK;
}

/** A store's open disputes, the nearest deadline first. */
export async function openDisputes(store: PaymentStorage, scope: StoreScope): Promise<OpenDisputeList> {
  const docs = await store.openDisputes(scope, OPEN_DISPUTES_LIST_MAX);
  const items = docs.flatMap((doc) =>
    doc.dispute ? [{ paymentId: doc._id, amount: centsToBrl(doc.amountCents), dispute: toDispute(doc.dispute) }] : [],
  );
  return { items: items.sort((a, b) => a.dispute.deadlineAt.localeCompare(b.dispute.deadlineAt)) };
}
