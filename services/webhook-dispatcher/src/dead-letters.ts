import { Subjects, type WebhookDeadLetter } from '@pix/contracts';
import { publishEvent, type JetStreamClient } from '@pix/messaging';
import { DeliveryModel, type DeliveryDoc } from './deliveries';

/**
 * Puts a dead delivery on the dead-letter stream and records that it is there. The message id is
 * the event id and run, so publishing again after a crash in between leaves one message per run.
 */
export async function publishDeadLetter(js: JetStreamClient, doc: DeliveryDoc): Promise<void> {
  const letter: WebhookDeadLetter = {
    eventId: doc._id,
    paymentId: doc.paymentId,
    storeId: doc.storeId,
    url: doc.url,
    reason: doc.deadReason ?? 'exhausted',
    attempts: doc.attempts,
    lastError: doc.lastError,
    deadLetteredAt: new Date().toISOString(),
    event: doc.event,
  };
  await publishEvent(js, Subjects.webhookDeadLetter, letter, `${doc._id}.run${doc.run}`);
  await DeliveryModel.updateOne(
    { _id: doc._id, run: doc.run, status: 'dead', deadLetteredAt: null },
    { $set: { deadLetteredAt: new Date() } },
  );
}

/** Publishes dead letters that a crash or a NATS outage kept off the stream. */
export async function publishMissingDeadLetters(js: JetStreamClient): Promise<void> {
  const missing = await DeliveryModel.find({ status: 'dead', deadLetteredAt: null }).limit(100).lean<DeliveryDoc[]>();
  for (const doc of missing) await publishDeadLetter(js, doc);
}
