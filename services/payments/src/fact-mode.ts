import { modeName } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { pixFactsRefused } from './metrics';
import type { PaymentDoc } from './model';
import { isLive } from './payment-storage';

/**
 * Whether a PSP fact may touch the payment it names: only a fact from the payment's own mode's
 * connection (the adapter stamps each fact with it). A fact of the other mode is refused, logged
 * and counted, never applied: a test PSP (the simulator anyone with a test token drives) cannot
 * pay, hold or refund a live payment, nor the reverse.
 */
export function ofPaymentsMode(
  doc: Pick<PaymentDoc, '_id' | 'livemode'>,
  fact: { livemode: boolean; txid: string },
  logger: Logger,
): boolean {
  if (fact.livemode === isLive(doc)) return true;
  pixFactsRefused.inc({ reason: 'other_mode' });
  logger.error(
    { paymentId: doc._id, txid: fact.txid, payment: modeName(isLive(doc)), told: modeName(fact.livemode) },
    "PSP fact refused: told by the other mode's PSP connection",
  );
  return false;
}
