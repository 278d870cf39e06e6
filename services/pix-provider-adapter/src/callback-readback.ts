import { brlToCents } from '@pix/contracts';
import type { PixEntry, ReceivedPix } from '@pix/api-pix';
import type { PixProvider } from './providers/provider';

/** Why a callback was not believed: psp_callbacks_refused_total's reasons. */
export const CALLBACK_REFUSALS = [
  'foreign_certificate',
  'readback_mismatch',
  'readback_not_found',
  'readback_failed',
] as const;
export type CallbackRefusal = (typeof CALLBACK_REFUSALS)[number];

/** What reading back a callback's Pix found: the PSP's own account of it, or why the callback is not believed. */
export type ReadBack =
  { believed: PixEntry } | { refused: 'readback_not_found' } | { refused: 'readback_mismatch'; held: ReceivedPix };

/**
 * A callback only says "look": the Pix it tells of is read back at the PSP over the adapter's own
 * mutual-TLS channel (GET /pix/{e2eid}) and believed when the PSP holds it with the same txid and
 * amount; what is then told is the PSP's answer, not the callback's body. Throws when the PSP cannot
 * be read (the caller leaves the Pix to the PSP's next try and to reconciliation).
 */
export async function readBack(provider: PixProvider, told: PixEntry): Promise<ReadBack> {
  const held = await provider.readPix(told.endToEndId);
  if (!held) return { refused: 'readback_not_found' };
  const same =
    held.endToEndId === told.endToEndId &&
    held.txid === told.txid &&
    brlToCents(Number(held.valor)) === brlToCents(Number(told.valor));
  if (!same || held.txid === undefined) return { refused: 'readback_mismatch', held };
  return { believed: { ...held, txid: held.txid } };
}
