import type { PixEntry, ReceivedPix } from '@pix/api-pix';
import { readBack } from './callback-readback';
import type { PixProvider } from './providers/provider';

const TOLD: PixEntry = {
  endToEndId: 'E1234567820261128103500000000001',
  txid: 'a'.repeat(32),
  valor: '12.34',
  horario: '2026-11-28T10:35:00.000Z',
};

/** A PSP that holds one Pix (or none, or cannot be read): only readPix is asked. */
function pspHolding(held: ReceivedPix | null | Error): PixProvider {
  const readPix = (endToEndId: string) =>
    held instanceof Error ? Promise.reject(held) : Promise.resolve(held?.endToEndId === endToEndId ? held : null);
  return { readPix } as Partial<PixProvider> as PixProvider;
}

describe("reading back a callback's Pix", () => {
  it("believes the PSP's account of it, not the callback's", async () => {
    const held = { ...TOLD, horario: '2026-11-28T10:34:59.000Z', devolucoes: [] };
    expect(await readBack(pspHolding(held), TOLD)).toEqual({ believed: held });
    // The same amount, written otherwise.
    const padded = { ...TOLD, valor: '012.34' };
    expect(await readBack(pspHolding(padded), TOLD)).toEqual({ believed: padded });
  });

  it('refuses a Pix the PSP does not hold', async () => {
    expect(await readBack(pspHolding(null), TOLD)).toEqual({ refused: 'readback_not_found' });
  });

  it('refuses a Pix the PSP holds with another amount or txid, or without a txid', async () => {
    for (const held of [
      { ...TOLD, valor: '1234.00' },
      { ...TOLD, txid: 'b'.repeat(32) },
      { ...TOLD, txid: undefined },
    ]) {
      expect(await readBack(pspHolding(held), TOLD)).toEqual({ refused: 'readback_mismatch', held });
    }
  });

  it('fails when the PSP cannot be read, for the caller to leave the Pix to a later try', async () => {
    await expect(readBack(pspHolding(new Error('the PSP answered read_pix with HTTP 503')), TOLD)).rejects.toThrow(
      'HTTP 503',
    );
  });
});
