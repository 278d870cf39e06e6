import { Subjects, type PaymentEvent, type WebhookAttemptMessage } from '@pix/contracts';
import { publishEvent, traceCarrier, type JetStreamClient } from '@pix/messaging';
import { attemptId } from './delivery-log';

/** The first attempt of a run of an event's delivery (the first run, or a replay). */
export function firstAttempt(event: PaymentEvent, url: string, run: number): WebhookAttemptMessage {
  return {
    eventId: event.eventId,
    paymentId: event.body.id,
    storeId: event.body.storeId,
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

/**
 * Puts an attempt on its way now. The message id (eventId:run:attempt) makes a second publish of
 * the same attempt (a redelivered event, a replay retried) one message within the duplicate window;
 * after it, the attempt's claim in the log still lets it go once. `stallLook`: the stall check
 * publishes it again after finding its message lost, under the attempt's id and which look it is,
 * since under the attempt's id alone a message lost after JetStream stored it would keep the new one
 * out for the whole window; replicas looking at once still publish one message.
 */
export async function publishAttemptNow(
  js: JetStreamClient,
  msg: WebhookAttemptMessage,
  stallLook?: number,
): Promise<void> {
  const id = attemptId(msg.eventId, msg.run, msg.attempt);
  await publishEvent(
    js,
    Subjects.webhookAttemptDue,
    msg,
    stallLook === undefined ? id : `${id}:stall-check-${stallLook}`,
  );
}

/**
 * Schedules an attempt message for `at` (a time already past fires at once). It waits on the
 * event's own schedule subject, and a schedule replaces the one before it there, so an event never
 * has two next steps waiting. The scheduler keeps only the body, so the trace context goes in it.
 */
export async function scheduleAttempt(js: JetStreamClient, msg: WebhookAttemptMessage, at: Date): Promise<void> {
  await js.publish(
    Subjects.webhookAttemptScheduled(msg.paymentId, msg.sequence),
    JSON.stringify({ ...msg, trace: traceCarrier() }),
    { schedule: { specification: at, target: Subjects.webhookAttemptDue } },
  );
}
