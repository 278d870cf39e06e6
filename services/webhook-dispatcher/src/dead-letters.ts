import { Subjects, type WebhookAttemptMessage, type WebhookDeadLetter } from '@pix/contracts';
import { publishEvent, type JetStreamClient } from '@pix/messaging';

/**
 * Puts a dead delivery on the dead-letter stream. The message id is the event id and run, so
 * publishing again (the attempt message redelivered after a crash before its ack) leaves one
 * message per run.
 */
export async function publishDeadLetter(
  js: JetStreamClient,
  msg: WebhookAttemptMessage,
  reason: WebhookDeadLetter['reason'],
  lastError: string | null,
): Promise<void> {
  const letter: WebhookDeadLetter = {
    eventId: msg.eventId,
    paymentId: msg.paymentId,
    storeId: msg.storeId,
    url: msg.url,
    reason,
    attempts: msg.attempt,
    lastError,
    deadLetteredAt: new Date().toISOString(),
    event: msg.event,
  };
  await publishEvent(js, Subjects.webhookDeadLetter, letter, `${msg.eventId}.run${msg.run}`);
}
