import { brlToCents, type ListedPix, type ListPixReply, type ReadPixReply } from '@pix/contracts';
import type { ReceivedPix } from '@pix/api-pix';
import type { PixProvider } from './providers/provider';

/**
 * The PSP's own listing, for payments' statement check (docs/decisions/statement-check.md): the Pix
 * a connection received in a window, a page of GET /pix at a time, and Pix read one by one. The
 * adapter keeps nothing of it; it only puts the PSP's words into centavos.
 */

/** A PSP's valor ("12.34") in centavos. */
function centsOf(valor: string): number {
  const cents = brlToCents(Number(valor));
  // The wire schema only takes \d+.\d\d, which is always whole centavos.
  if (cents === null) throw new Error(`a valor that is no amount: ${valor}`);
  return cents;
}

export function listedPix(pix: ReceivedPix): ListedPix {
  return {
    endToEndId: pix.endToEndId,
    txid: pix.txid ?? null,
    amountCents: centsOf(pix.valor),
    horario: pix.horario,
    devolucoes: (pix.devolucoes ?? []).map((d) => ({ id: d.id, amountCents: centsOf(d.valor), status: d.status })),
  };
}

/** The connection of a mode, or null when the adapter has none configured for it. */
export type ProviderOf = (livemode: boolean) => PixProvider | null;

export async function listPix(
  providerOf: ProviderOf,
  request: { livemode: boolean; from: string; to: string; page: number },
): Promise<ListPixReply> {
  const provider = providerOf(request.livemode);
  if (!provider) return { connection: 'not_configured' };
  const listed = await provider.listReceivedPix(
    { from: new Date(request.from), to: new Date(request.to) },
    request.page,
  );
  return { connection: 'open', pix: listed.pix.map(listedPix), pages: listed.pages };
}

export async function readPix(
  providerOf: ProviderOf,
  request: { livemode: boolean; endToEndIds: string[] },
): Promise<ReadPixReply> {
  const provider = providerOf(request.livemode);
  if (!provider) throw new Error('no PSP connection is configured for this mode');
  const read = await Promise.all(request.endToEndIds.map(async (id) => ({ id, pix: await provider.readPix(id) })));
  return {
    pix: read.flatMap(({ pix }) => (pix ? [listedPix(pix)] : [])),
    unknown: read.flatMap(({ id, pix }) => (pix ? [] : [id])),
  };
}
