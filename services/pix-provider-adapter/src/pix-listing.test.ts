import type { ReceivedPix } from '@pix/api-pix';
import type { PixProvider } from './providers/provider';
import { listPix, readPix } from './pix-listing';

const PIX: ReceivedPix = {
  endToEndId: 'E00000000202611281500aaaaaaaaaaa',
  txid: 'txid0001',
  valor: '123.45',
  horario: '2026-11-28T15:00:00.000Z',
  devolucoes: [
    {
      id: 'D1',
      rtrId: 'D00000000202611281600aaaaaaaaaaa',
      valor: '23.40',
      horario: { solicitacao: '2026-11-28T16:00:00.000Z' },
      status: 'DEVOLVIDO',
    },
  ],
};

/** A PSP connection answering from memory: only what the listing reads. */
function provider(pix: ReceivedPix[]): PixProvider {
  return {
    listReceivedPix: async (window: { from: Date; to: Date }, page: number) => {
      expect(window.from.toISOString()).toBe('2026-11-28T03:00:00.000Z');
      return { pix: page === 0 ? pix : [], pages: 2 };
    },
    readPix: async (id: string) => pix.find((p) => p.endToEndId === id) ?? null,
  } as Partial<PixProvider> as PixProvider;
}

describe("the PSP's listing for the statement check", () => {
  it('answers a page of GET /pix in centavos, with each devolução’s amount and status', async () => {
    const reply = await listPix(
      () => provider([PIX, { ...PIX, endToEndId: 'E2', txid: undefined, devolucoes: undefined }]),
      {
        livemode: false,
        from: '2026-11-28T03:00:00.000Z',
        to: '2026-11-29T03:00:00.000Z',
        page: 0,
      },
    );
    expect(reply).toEqual({
      connection: 'open',
      pages: 2,
      pix: [
        {
          endToEndId: PIX.endToEndId,
          txid: 'txid0001',
          amountCents: 12345,
          horario: PIX.horario,
          devolucoes: [{ id: 'D1', amountCents: 2340, status: 'DEVOLVIDO' }],
        },
        { endToEndId: 'E2', txid: null, amountCents: 12345, horario: PIX.horario, devolucoes: [] },
      ],
    });
  });

  it('says so when the mode has no connection configured, rather than failing', async () => {
    const reply = await listPix(() => null, { livemode: true, from: '', to: '', page: 0 });
    expect(reply).toEqual({ connection: 'not_configured' });
  });

  it('reads Pix one by one, and names those the PSP does not have', async () => {
    const reply = await readPix(() => provider([PIX]), { livemode: false, endToEndIds: [PIX.endToEndId, 'E404'] });
    expect(reply.pix.map((p) => [p.endToEndId, p.amountCents])).toEqual([[PIX.endToEndId, 12345]]);
    expect(reply.unknown).toEqual(['E404']);
  });
});
