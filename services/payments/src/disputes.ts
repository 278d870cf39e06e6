import {
  centsToBrl,
  DISPUTE_REMINDER_HOURS,
  Subjects,
  type DefenseCommand,
  type Dispute,
  type DisputeDecision,
  type DisputeReminderHours,
  type DisputeStatus,
  type PaymentEvent,
  type PixDisputeEvent,
} from '@pix/contracts';
import { traceCarrier } from '@pix/messaging';
import type { OutboxMessage, PaymentDoc, PaymentState } from './model';
import { dueMessage, owedEvent } from './outbox';
import { isLive, type Change, type Skip } from './payment-storage';

/**
 * A payment's dispute as payments keeps it, inside the payment (docs/decisions/disputes.md): the
 * infraction the PSP told of (its id at the PSP), the merchant's defence, the PSP's decision and the
 * reminders already sent. Every change to it is one conditional write of the payment with the
 * webhook events and scheduled messages it owes, so a fact told again changes nothing.
 */
export interface DisputeRecord {
  /** The infraction's id at the PSP (Efí's idInfracao). */
  pspDisputeId: string;
  status: DisputeStatus;
  reason: string;
  kind: string;
  amountCents: number;
  openedAt: Date;
  deadlineAt: Date;
  defense: { text: string; sentAt: Date } | null;
  decision: DisputeDecision | null;
  closedAt: Date | null;
  /** The reminders sent, by hours before the deadline. */
  reminded: DisputeReminderHours[];
}

/** The public shape of a payment's dispute (money in BRL, as every amount of the API). */
export function toDispute(record: DisputeRecord): Dispute {
  return {
    status: record.status,
    reason: record.reason,
    kind: record.kind,
    amountAtRisk: centsToBrl(record.amountCents),
    openedAt: record.openedAt.toISOString(),
    deadlineAt: record.deadlineAt.toISOString(),
    defense: record.defense && { text: record.defense.text, sentAt: record.defense.sentAt.toISOString() },
    decision: record.decision,
    closedAt: record.closedAt?.toISOString() ?? null,
  };
}

type DisputeEventType = 'payment.dispute_opened' | 'payment.dispute_closed' | 'payment.dispute_reminder';

/** A dispute webhook event of the payment, next in its sequence. */
function disputeEvent(
  doc: Pick<PaymentState, '_id' | 'storeId' | 'webhookUrl' | 'livemode'>,
  record: DisputeRecord,
  type: DisputeEventType,
  sequence: number,
  hoursLeft?: DisputeReminderHours,
): OutboxMessage {
  const common = { paymentId: doc._id, storeId: doc.storeId, livemode: isLive(doc), ...toDispute(record) };
  const body = (
    type === 'payment.dispute_reminder' ? { event: type, ...common, hoursLeft } : { event: type, ...common }
  ) as PaymentEvent['body'];
  return owedEvent(doc, sequence, body);
}

/**
 * The reminders of a dispute still to come (48, 24 and 6 hours before its deadline), each a
 * scheduled message of the payment (deadlines.ts' mechanism: JetStream delivers it when it falls
 * due, nothing polls). A mark already past when the dispute opened gets none. `at` is the
 * reminder's moment: its handler reads the hours left from it.
 */
export function reminderMessages(paymentId: string, record: DisputeRecord, now: Date): OutboxMessage[] {
  const deadline = record.deadlineAt.getTime();
  return DISPUTE_REMINDER_HOURS.map((hours) => ({ hours, at: new Date(deadline - hours * 3_600_000) }))
    .filter(({ at }) => at > now)
    .map(({ hours, at }) => dueMessage(paymentId, 'dispute_reminder', at, `${hours}h-${deadline}`));
}

/** Which reminder a scheduled message of this dispute is (its hours before the deadline), if any. */
export function reminderHours(record: DisputeRecord, at: Date): DisputeReminderHours | null {
  const hours = Math.round((record.deadlineAt.getTime() - at.getTime()) / 3_600_000);
  return DISPUTE_REMINDER_HOURS.find((mark) => mark === hours) ?? null;
}

/** Why a dispute fact changes nothing: told already, or the payment has another dispute open. */
export type DisputeFactSkip = 'known' | 'another_open';

/**
 * What a dispute fact of the PSP (an infraction opened, or decided) does to the payment: one change
 * with its webhook events. A fact of an infraction the payment does not know opens its dispute
 * (and, when it is decided already, for an adapter that heard of it only then, closes it in the
 * same write: opened, then closed, in the payment's sequence). A decision closes the open dispute
 * once. A fact told again finds the dispute as it left it and changes nothing.
 *
 * A deadline already past is recorded as the PSP says (the caller flags it): no reminder is due.
 */
export function disputeChange(
  doc: PaymentDoc,
  fact: PixDisputeEvent,
  now = new Date(),
): Change | Skip<DisputeFactSkip> {
  const current = doc.dispute ?? null;
  const decision = fact.decision ?? null;
  const closedAt = decision ? validDate(fact.decidedAt, now) : null;
  if (current && current.pspDisputeId === fact.pspDisputeId) {
    if (!decision || current.status === 'closed') return { skip: 'known' };
    const closed: DisputeRecord = { ...current, status: 'closed', decision, closedAt };
    const sequence = doc.eventSeq + 1;
    return {
      set: { dispute: closed, eventSeq: sequence },
      messages: [disputeEvent(doc, closed, 'payment.dispute_closed', sequence)],
    };
  }
  // One dispute at a time: a second claim against the same Pix while one is open is the PSP's to merge.
  if (current?.status === 'open') return { skip: 'another_open' };
  const opened: DisputeRecord = {
    pspDisputeId: fact.pspDisputeId,
    status: 'open',
    reason: fact.reason,
    kind: fact.kind,
    amountCents: fact.amountCents,
    openedAt: validDate(fact.openedAt, now),
    deadlineAt: validDate(fact.deadlineAt, now),
    defense: null,
    decision: null,
    closedAt: null,
    reminded: [],
  };
  const sequence = doc.eventSeq + 1;
  const messages = [disputeEvent(doc, opened, 'payment.dispute_opened', sequence)];
  if (!decision) {
    return {
      set: { dispute: opened, eventSeq: sequence },
      messages: [...messages, ...reminderMessages(doc._id, opened, now)],
    };
  }
  const closed: DisputeRecord = { ...opened, status: 'closed', decision, closedAt };
  return {
    set: { dispute: closed, eventSeq: sequence + 1 },
    messages: [...messages, disputeEvent(doc, closed, 'payment.dispute_closed', sequence + 1)],
  };
}

/** Why a defence is not taken now (domain error codes), or `same`: that very defence was taken before. */
export type DefenseSkip = 'dispute_not_open' | 'dispute_deadline_passed' | 'dispute_defended' | 'same';

/**
 * The merchant's defence of the open dispute, once and before its deadline: recorded with the
 * command that forwards it to the PSP (the adapter's work queue), in one write, so it reaches the
 * PSP once. The same text again (a retry) is `same`: answered as taken, nothing sent again.
 */
export function defenseChange(doc: PaymentDoc, text: string, now = new Date()): Change | Skip<DefenseSkip> {
  const dispute = doc.dispute;
  if (!dispute || dispute.status !== 'open') return { skip: 'dispute_not_open' };
  if (dispute.defense) return { skip: dispute.defense.text === text ? 'same' : 'dispute_defended' };
  if (dispute.deadlineAt <= now) return { skip: 'dispute_deadline_passed' };
  const defended: DisputeRecord = { ...dispute, defense: { text, sentAt: now } };
  return { set: { dispute: defended }, messages: [defenseCommand(doc, defended, text)] };
}

/** The command that forwards a defence to the PSP; its id is the infraction's, so publishing it again is harmless. */
function defenseCommand(
  doc: Pick<PaymentState, '_id' | 'txid' | 'livemode'>,
  dispute: DisputeRecord,
  text: string,
): OutboxMessage {
  const body: DefenseCommand = {
    txid: doc.txid,
    attempt: 1,
    livemode: isLive(doc),
    paymentId: doc._id,
    pspDisputeId: dispute.pspDisputeId,
    text,
  };
  return {
    subject: Subjects.pixCommand('defense'),
    msgId: `defense:${dispute.pspDisputeId}:1`,
    body,
    trace: traceCarrier(),
  };
}

/**
 * A reminder fell due: the dispute, still open without a defence, gets its `payment.dispute_reminder`
 * webhook once (the hours are recorded with it). One answered, decided or replaced needs none.
 */
export function reminderChange(doc: PaymentDoc, at: Date): Change | Skip<'not_due'> {
  const dispute = doc.dispute;
  const hours = dispute && reminderHours(dispute, at);
  if (!dispute || !hours || dispute.status !== 'open' || dispute.defense || dispute.reminded.includes(hours)) {
    return { skip: 'not_due' };
  }
  const reminded: DisputeRecord = { ...dispute, reminded: [...dispute.reminded, hours] };
  const sequence = doc.eventSeq + 1;
  return {
    set: { dispute: reminded, eventSeq: sequence },
    messages: [disputeEvent(doc, reminded, 'payment.dispute_reminder', sequence, hours)],
  };
}

/** A PSP's time, or `fallback` when it cannot be read. */
function validDate(text: string | undefined, fallback: Date): Date {
  const date = new Date(text ?? '');
  return Number.isNaN(date.getTime()) ? fallback : date;
}
