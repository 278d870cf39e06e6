import type { JetStreamClient } from '@pix/messaging';
import { advance, firstAttempt } from './attempt-messages';
import type { DeliveryDoc, DeliveryLogProtocol } from './delivery-log';

/**
 * Delivers a finished event again (delivered or dead-lettered) as a new run with the full retry
 * schedule and the same webhook-id; the admin CLI's replay and the Events API's redeliver. Null
 * when its delivery is still being retried: it is on its way. The run is recorded first and its
 * first attempt published after; a replay whose publish was lost (the replica stopped in between)
 * shows as a pending run without a claimed attempt, and replaying it publishes that attempt again.
 */
export async function replay(js: JetStreamClient, log: DeliveryLogProtocol, doc: DeliveryDoc): Promise<number | null> {
  let run: number;
  if (doc.status !== 'pending' && (await log.startReplay(doc))) {
    run = doc.run + 1;
  } else if (doc.status === 'pending' && doc.run > 1 && doc.claimed === 0) {
    run = doc.run;
  } else {
    return null;
  }
  await advance(js, 'first', firstAttempt(doc, run));
  return run;
}
