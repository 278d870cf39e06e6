import { modeName, type ReadChargeReply } from '@pix/contracts';
import type { JetStreamClient } from '@pix/messaging';
import type { Counter, Logger } from '@pix/observability';
import { receivePix } from './callbacks';
import type { PixProvider } from './providers/provider';
import type { ToldFacts } from './told-facts';

/**
 * A charge read at the PSP before payments expires it (GET /cob): the Pix it received go through
 * the callbacks' path first (receivePix), so one whose callback was lost is applied rather than
 * expired, and the answer says how many there were. A PSP that cannot be read fails the call, and
 * payments tries the expiry again later.
 */
export async function readCharge(
  provider: PixProvider,
  js: JetStreamClient,
  told: ToldFacts,
  logger: Logger,
  found: Counter<'connection' | 'source'>,
  charge: { txid: string; livemode: boolean },
): Promise<ReadChargeReply> {
  const { txid, livemode } = charge;
  const held = await provider.readCharge(txid);
  if (!held) return { status: 'not_found', pixReceived: 0 };
  const added = await receivePix(js, told, held.pix, livemode, logger);
  const connection = modeName(livemode);
  found.inc({ connection, source: 'charge_read' }, added);
  if (added > 0) {
    logger.warn({ connection, txid, added }, 'a charge read before its expiry had a Pix never called back about');
  }
  return { status: held.status, pixReceived: held.pix.length };
}
