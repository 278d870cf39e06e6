import { Subjects, type PaymentEvent, type WebhookAttemptMessage } from '@pix/contracts';
import { publishEvent, traceCarrier, type JetStreamClient } from '@pix/messaging';
import { attemptId } from './delivery-log';

/**
 * The lifecycle of an attempt message on WEBHOOK_ATTEMPTS, written down once: every way one is
 * published is a step of this table, and `advance` is the only publisher. A message carries
 * everything its attempt needs (the event, the URL, the run and attempt), and why it waited.
 *
 * | step            | when                                                              | message            | goes         |
 * |-----------------|-------------------------------------------------------------------|--------------------|--------------|
 * | `first`         | an event taken in whose endpoint is busy; a replay (a new run)   | attempt 1, attempt | now          |
 * | `first-later`   | an event taken in, when the schedule's first delay is not 0       | attempt 1, attempt | that delay   |
 * | `stall-check`   | a pending delivery that did not move on (its message was lost)    | next attempt       | now          |
 * | `no-secrets`    | the store's signing secrets cannot be read (the gateway is away)  | same, deferred     | in 5 s       |
 * | `held`          | an earlier event of the payment is not recorded yet               | same, held         | look again   |
 * | `wake`          | the earlier event it waits for finished                           | attempt 1, woken   | now          |
 * | `retry`         | the attempt failed with attempts left                             | next, attempt      | the schedule |
 * | `endpoint-back` | a retry waiting for its schedule, once its endpoint answers 2xx   | same, attempt      | now          |
 * | `ahead`         | a retry a later event of its payment waits for, endpoint back     | same, ahead        | now          |
 * | `redo`          | its claim lapsed without a result (its replica died mid-attempt)  | next, attempt      | in place     |
 * | `hand-back`     | its endpoint has no room, the replica stops, a live claim is out  | same, unchanged    | back, later  |
 *
 * `now` publishes on webhooks.attempts.due with the attempt's id as message id, so publishing one
 * twice (a redelivered event, a replay retried) is one message; the stall check adds which look it
 * is, and a wake or a retry brought forward (`endpoint-back`, `ahead`) that it is one, since a message JetStream stored (and
 * maybe lost) keeps its id taken for the duplicate window. The rest are scheduled messages on the
 * event's own subject, which fire onto webhooks.attempts.due when due; a schedule replaces the one
 * before it there, so an event never has two next steps waiting. A wake does not go through the
 * schedule: a stream's new leader may fire schedules seconds late, and a woken event should not
 * wait for that. Nor does a retry brought forward: a new schedule could replace a later one that
 * another replica set meanwhile; its own schedule fires later and finds the attempt made. The last
 * two publish nothing: an attempt whose claim lapsed is made again by the message that found it
 * (`in place`: one more hop was where, in a chaos run, a redo went missing), and a message whose
 * endpoint has no room is handed back to its consumer for a little later (`back`: a nak with a
 * delay; a scheduled message might fire late under a stream's new leader).
 */
export type AttemptStep =
  | 'first'
  | 'first-later'
  | 'stall-check'
  | 'no-secrets'
  | 'held'
  | 'wake'
  | 'retry'
  | 'endpoint-back'
  | 'ahead'
  | 'redo'
  | 'hand-back';

interface StepRule {
  /** Why the message waited, or `kept` when the message goes on as it came. */
  reason: WebhookAttemptMessage['reason'] | 'kept';
  /** Which attempt the message is for: the same one, or the one after (a retry, a lapsed claim). */
  attempt: 'same' | 'next';
  /** Its deferrals and holds so far, for their backoff: counted on, kept, or back to none. */
  waits: 'count' | 'keep' | 'reset';
  /** Published at once or scheduled; made by the message in hand; or handed back to its consumer. */
  publish: 'now' | 'scheduled' | 'in-place' | 'back';
}

export const LIFECYCLE: Readonly<Record<AttemptStep, StepRule>> = {
  first: { reason: 'attempt', attempt: 'same', waits: 'reset', publish: 'now' },
  'first-later': { reason: 'attempt', attempt: 'same', waits: 'reset', publish: 'scheduled' },
  'stall-check': { reason: 'attempt', attempt: 'same', waits: 'reset', publish: 'now' },
  'no-secrets': { reason: 'deferred', attempt: 'same', waits: 'count', publish: 'scheduled' },
  held: { reason: 'held', attempt: 'same', waits: 'count', publish: 'scheduled' },
  wake: { reason: 'woken', attempt: 'same', waits: 'keep', publish: 'now' },
  retry: { reason: 'attempt', attempt: 'next', waits: 'reset', publish: 'scheduled' },
  'endpoint-back': { reason: 'attempt', attempt: 'same', waits: 'keep', publish: 'now' },
  ahead: { reason: 'attempt', attempt: 'same', waits: 'keep', publish: 'now' },
  redo: { reason: 'attempt', attempt: 'next', waits: 'reset', publish: 'in-place' },
  'hand-back': { reason: 'kept', attempt: 'same', waits: 'keep', publish: 'back' },
};

/** An event's delivery: the event, its payment and store, and where it goes (a delivery log record has them). */
export interface DeliveryOf {
  event: PaymentEvent;
  paymentId: string;
  storeId: string;
  url: string;
}

/** The first attempt of a run of an event's delivery (the first run, or a replay). */
export function firstAttempt({ event, paymentId, storeId, url }: DeliveryOf, run: number): WebhookAttemptMessage {
  return {
    eventId: event.eventId,
    paymentId,
    storeId,
    sequence: event.sequence,
    url,
    event,
    run,
    attempt: 1,
    reason: 'attempt',
    waits: 0,
    missingSince: null,
    trace: traceCarrier(),
  };
}

export interface Advance {
  /** When a scheduled step fires (a time already past fires at once); ignored by `now` steps. */
  at?: Date;
  /** `held`: since when the earlier event has been missing (null when it is recorded but pending). */
  missingSince?: string | null;
  /** `stall-check`: which look of the stall check published it. */
  stallLook?: number;
}

/**
 * Takes `step` from `msg` (see the table above): publishes the message it makes, now or scheduled,
 * or, for the steps that publish nothing, answers the message the handler goes on with.
 */
export async function advance(
  js: JetStreamClient,
  step: AttemptStep,
  msg: WebhookAttemptMessage,
  options: Advance = {},
): Promise<WebhookAttemptMessage> {
  const rule = LIFECYCLE[step];
  const next: WebhookAttemptMessage = {
    ...msg,
    reason: rule.reason === 'kept' ? msg.reason : rule.reason,
    attempt: rule.attempt === 'next' ? msg.attempt + 1 : msg.attempt,
    waits: rule.waits === 'count' ? msg.waits + 1 : rule.waits === 'reset' ? 0 : msg.waits,
    missingSince: step === 'held' ? (options.missingSince ?? null) : rule.waits === 'reset' ? null : msg.missingSince,
  };
  // Ahead of the endpoint's other retries for this attempt only: the one after it, if it fails, is
  // a retry like any other. A message handed back stays as it came.
  if (step === 'ahead') next.ahead = true;
  else if (rule.publish !== 'back') delete next.ahead;
  if (rule.publish === 'in-place' || rule.publish === 'back') return next;
  // The scheduler keeps only the body, so the trace context goes in it.
  const published = { ...next, trace: traceCarrier() };
  if (rule.publish === 'now') {
    const id = attemptId(next.eventId, next.run, next.attempt);
    const suffix =
      step === 'wake' || step === 'endpoint-back' || step === 'ahead'
        ? `:${step}`
        : options.stallLook === undefined
          ? ''
          : `:stall-check-${options.stallLook}`;
    await publishEvent(js, Subjects.webhookAttemptDue, published, `${id}${suffix}`);
  } else {
    await js.publish(Subjects.webhookAttemptScheduled(next.paymentId, next.sequence), JSON.stringify(published), {
      schedule: { specification: options.at ?? new Date(), target: Subjects.webhookAttemptDue },
    });
  }
  return published;
}
