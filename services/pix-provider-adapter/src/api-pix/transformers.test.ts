import { Subjects } from '@pix/contracts';
import { chargeFromCob, factFromCallback, refundFromDevolucao } from './transformers';
import type { Cob, Devolucao } from './wire';

describe("API Pix's words into the platform's", () => {
  const devolucao = (status: Devolucao['status']): Devolucao => ({
    id: 'dev1',
    rtrId: 'D123',
    valor: '10.00',
    horario: { solicitacao: '2026-01-01T00:00:00Z' },
    status,
  });

  it.each([
    ['EM_PROCESSAMENTO', 'processing'],
    ['DEVOLVIDO', 'refunded'],
    ['NAO_REALIZADO', 'failed'],
  ] as const)('a devolução %s is a %s refund', (status, platform) => {
    expect(refundFromDevolucao(devolucao(status))).toEqual({ refundId: 'dev1', rtrId: 'D123', status: platform });
  });

  it("a cob's BR Code is the charge's copy-and-paste code", () => {
    const cob = { txid: 't1', location: 'psp.example/qr/1', pixCopiaECola: '000201…' } as Cob;
    expect(chargeFromCob(cob)).toEqual({ txid: 't1', location: 'psp.example/qr/1', qrCopyPaste: '000201…' });
  });

  it("a callback's Pix is a paid fact, or the analysis fact its state names", () => {
    const pix = { endToEndId: 'E1', txid: 't1', valor: '25.50', horario: '2026-01-01T12:00:00Z' };
    expect(factFromCallback(pix, 2550)).toEqual({
      subject: Subjects.pixPaid,
      msgId: 'E1',
      payload: { endToEndId: 'E1', txid: 't1', amountCents: 2550, paidAt: '2026-01-01T12:00:00.000Z' },
    });
    expect(factFromCallback({ ...pix, analise: 'EM_ANALISE' }, 2550)).toMatchObject({
      subject: Subjects.pixReview,
      msgId: 'E1:EM_ANALISE',
      payload: { amountCents: 2550 },
    });
    expect(factFromCallback({ ...pix, analise: 'LIBERADO' }, 2550)).toMatchObject({
      subject: Subjects.pixCleared,
      payload: { endToEndId: 'E1', txid: 't1' },
    });
    expect(factFromCallback({ ...pix, analise: 'REJEITADO' }, 2550)).toMatchObject({ subject: Subjects.pixRejected });
  });
});
