import type { PaymentEvent } from '@pix/contracts';
import type { JetStreamClient } from '@pix/messaging';
import { firstAttempt, publishAttemptNow, scheduleAttempt } from './attempt-messages';
import { recordDelivery } from './delivery-log';

/**
 * Takes a payment event in: records its delivery in the log, then puts its first attempt on
 * WEBHOOK_ATTEMPTS, at once (the schedule's first delay is 0 by default) or scheduled. The PAYMENTS
 * message is acked after both, so a crash in between redelivers it; a delivery found already
 * recorded still gets its first attempt published (the message id drops a second copy), so no
 * event is left without one.
 */
export async function takeEvent(js: JetStreamClient, event: PaymentEvent, firstDelayMs: number): Promise<void> {
  const url = event.body.webhookUrl;
  if (!url) return;
  const firstAttemptAt = new Date(Date.now() + firstDelayMs);
  await recordDelivery(event, url, firstAttemptAt);
  const msg = firstAttempt(event, url, 1);
  if (firstDelayMs > 0) await scheduleAttempt(js, msg, firstAttemptAt);
  else await publishAttemptNow(js, msg);
}
