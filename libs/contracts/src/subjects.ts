import type { EventType } from './events';
import type { PaymentStatus } from './statuses';

/**
 * NATS subjects of the platform's messages (JetStream facts, scheduled work, notices): the one
 * place they are spelled. Request/reply subjects belong to their RPC definitions (rpc/*.ts).
 */
export const Subjects = {
  /** Every payment event (the PAYMENTS stream). */
  paymentEventsAll: 'payments.events.>',
  /**
   * An event of a payment, on `payments.events.<audience>.<type>`: `hook` when the payment has a
   * webhookUrl (the dispatcher takes these only), `nohook` when it has none (nobody is notified, the
   * gateway's pages and dashboard still follow it); the type is `created`, `status_changed`,
   * `refund_created`, `refund_succeeded`, `refund_failed`, `dispute_opened`, ….
   */
  paymentEvent: (type: EventType, webhook: boolean) =>
    `payments.events.${webhook ? 'hook' : 'nohook'}.${eventToken(type)}`,
  /** The events of payments with a webhookUrl: the dispatcher's. */
  paymentEventsWithWebhook: 'payments.events.hook.>',
  /** The events of one type, whether their payment has a webhookUrl or not. */
  paymentEventsOfType: (type: EventType) => `payments.events.*.${eventToken(type)}`,
  /**
   * An event as payments published it before the audience token (`payments.events.<type>`): an
   * outbox written then may still hold some, and its relay publishes them as they were stored
   * (their signature covers the subject), so the dispatcher's consumer keeps taking these
   * (docs/decisions/webhook-subjects.md).
   */
  paymentEventsUntagged: 'payments.events.*',
  /**
   * The PAYMENTS stream's feed: each event it stores, republished by the stream onto
   * `feeds.payments.events.<type>` for the gateway's live payment pages (streams.ts, `feed`).
   */
  paymentEventsFeedAll: 'feeds.payments.events.>',
  /**
   * A payment's scheduled work (charge expiry, the review refund, a charge or refund retry): the
   * schedule waits on its own subject and is delivered on `paymentDue(kind)` when it falls due.
   */
  paymentSchedulesAll: 'payments.schedules.>',
  paymentSchedule: (kind: PaymentDueKind, paymentId: string, key: string) =>
    `payments.schedules.${kind}.${paymentId}.${key}`,
  paymentDue: (kind: PaymentDueKind) => `payments.due.${kind}`,
  /**
   * The nightly statement check (statement-check.ts): one schedule, replaced by each run with the
   * next night's, delivered on statementCheckDue to the same consumer as a payment's work.
   */
  statementCheckSchedule: 'payments.schedules.statement_check',
  statementCheckDue: 'payments.due.statement_check',
  /** Core NATS notice, after a statement check was stored: every payments replica shows it in its gauges. */
  statementChecked: 'payments.statement-checks.stored',
  paymentDueAll: 'payments.due.>',
  /**
   * A store's payment counts in one mode (the PAYMENT_COUNTS stream of JetStream counters; `scope` is
   * modeScope's name of the store in the mode): one counter per
   * status, and `all` for every payment of the store, whatever its status.
   */
  paymentCountsAll: 'payments.counts.>',
  paymentCount: (scope: string, key: PaymentCountKey) => `payments.counts.${scope}.${key}`,
  /** The PSP's facts about a received Pix: paid, flagged for analysis, analysis cleared or rejected. */
  pixEventsAll: 'pix.events.>',
  pixPaid: 'pix.events.paid',
  pixReview: 'pix.events.review',
  pixCleared: 'pix.events.cleared',
  pixRejected: 'pix.events.rejected',
  /** The PSP settled a refund (devolução): the money is back with the payer, or it was not done. */
  pixRefunded: 'pix.events.refunded',
  pixRefundFailed: 'pix.events.refund_failed',
  /**
   * An infraction (a MED claim) against a received Pix, as a PSP that reports them tells it: filed
   * (the money blocked until the PSP decides), and decided.
   */
  pixDisputeOpened: 'pix.events.dispute_opened',
  pixDisputeClosed: 'pix.events.dispute_closed',
  /**
   * What payments asks of the PSP without waiting for it (the PIX_COMMANDS stream, the adapter's
   * work queue): send a refund, remove a charge. A command is published with the payment write that
   * decided it (its outbox), runs on `pixCommand(kind)`, and the adapter's own retries and read-backs
   * wait as scheduled messages on `pixCommandSchedule(kind, key)` until they fall due there.
   */
  pixCommandsAll: 'pix.commands.>',
  pixCommand: (kind: PixCommandKind) => `pix.commands.run.${kind}`,
  pixCommandsRunAll: 'pix.commands.run.>',
  pixCommandSchedule: (kind: PixCommandKind, key: string) => `pix.commands.later.${kind}.${key}`,
  /** An event whose webhook could not be delivered (every attempt failed, or the target is refused). */
  webhookDeadLetter: 'webhooks.dead-letters',
  /** Every webhook attempt, due now or scheduled (the WEBHOOK_ATTEMPTS stream). */
  webhookAttemptsAll: 'webhooks.attempts.>',
  /** A webhook attempt to make now (the first one, a replay, or a scheduled one that fired). */
  webhookAttemptDue: 'webhooks.attempts.due',
  /**
   * Where an event's next attempt waits as a JetStream scheduled message (a retry, a deferral while
   * its endpoint is busy, a hold behind an earlier event of its payment) until it fires onto
   * webhookAttemptDue. One subject per event, and a schedule replaces the previous one on its
   * subject, so an event has at most one next step waiting; its predecessor can find it to wake it.
   */
  webhookAttemptScheduled: (paymentId: string, sequence: number) =>
    `webhooks.attempts.scheduled.${paymentId}.${sequence}`,
  /**
   * Core NATS notice, after a store's webhook secrets changed in MongoDB: every dispatcher replica
   * drops its cached copy, so the next delivery is signed with the new set.
   */
  storesWebhookSecretsRotated: 'stores.webhook-secrets.rotated',
  /** The AUTH bucket's feed: each change of `$KV.AUTH.<key>` republished onto `feeds.auth.<key>` for the gateway's replicas. */
  authFeedAll: 'feeds.auth.>',
} as const;

/** An event type as a subject token: `payment.created` → `created`, `refund.created` → `refund_created`. */
function eventToken(type: EventType): string {
  return type.replace(/^payment\./, '').replace('.', '_');
}

/** What a store's payment counter counts: the payments in one status, or all of them. */
export type PaymentCountKey = PaymentStatus | 'all';

/** What a payment's scheduled message is for. */
export type PaymentDueKind = 'expiry' | 'refund' | 'charge' | 'dispute_reminder';

/** What payments asks of the PSP through the adapter's work queue: a refund, the removal of a charge, a dispute's defence. */
export type PixCommandKind = 'refund' | 'cancel' | 'defense';

/** NATS subject matching: `*` is one token, `>` the rest (one token or more). */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
