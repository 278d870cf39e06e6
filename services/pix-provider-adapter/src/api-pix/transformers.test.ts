import { Subjects } from '@pix/contracts';
import { chargeFromCob, devolucaoRequestFrom, factsFromPix, factFromRefund, refundFromDevolucao } from './transformers';
import type { Cob, Devolucao } from '@pix/api-pix';

describe("API Pix's words into the platform's", () => {
  const devolucao = (status: Devolucao['status'], extra: Partial<Devolucao> = {}): Devolucao => ({
    id: 'dev1',
    rtrId: 'D123',
    valor: '10.00',
    horario: {
      solicitacao: '2026-01-01T00:00:00Z',
      ...(status === 'EM_PROCESSAMENTO' ? {} : { liquidacao: '2026-01-01T00:00:05Z' }),
    },
    status,
    ...extra,
  });

  it.each([
    ['EM_PROCESSAMENTO', 'processing', null, null],
    ['DEVOLVIDO', 'refunded', '2026-01-01T00:00:05.000Z', null],
    ['NAO_REALIZADO', 'failed', '2026-01-01T00:00:05.000Z', 'Conta encerrada'],
  ] as const)('a devolução %s is a %s refund', (status, platform, settledAt, failureReason) => {
    expect(refundFromDevolucao(devolucao(status, { motivo: 'Conta encerrada' }))).toEqual({
      pspRefundId: 'dev1',
      rtrId: 'D123',
      status: platform,
      settledAt,
      failureReason,
      amountCents: 1000,
      nature: 'other',
    });
  });

  it.each([
    ['MED_FRAUDE', 'med_fraud'],
    ['MED_OPERACIONAL', 'med_operational'],
    ['MED_PIX_AUTOMATICO', 'other'],
    ['ORIGINAL', 'other'],
    ['RETIRADA', 'other'],
    ['UMA_NATUREZA_NOVA', 'other'],
    [undefined, 'other'],
  ] as const)("a devolução of natureza %s is the platform's %s", (natureza, nature) => {
    const settled = devolucao('DEVOLVIDO', { id: 'PSPmed1', valor: '7.25', ...(natureza && { natureza }) });
    expect(factFromRefund(refundFromDevolucao(settled), { txid: 't1', endToEndId: 'E1' }, true)?.payload).toEqual({
      txid: 't1',
      endToEndId: 'E1',
      pspRefundId: 'PSPmed1',
      rtrId: 'D123',
      settledAt: '2026-01-01T00:00:05.000Z',
      failureReason: null,
      amountCents: 725,
      nature,
      livemode: true,
    });
  });

  it("a settled devolução is the platform's fact, one per devolução and outcome; one in process is none yet", () => {
    const pix = { txid: 't1', endToEndId: 'E1' };
    expect(factFromRefund(refundFromDevolucao(devolucao('EM_PROCESSAMENTO')), pix, false)).toBeNull();
    expect(factFromRefund(refundFromDevolucao(devolucao('DEVOLVIDO')), pix, false)).toEqual({
      subject: Subjects.pixRefunded,
      msgId: 'E1:devolucao:dev1:refunded',
      payload: {
        txid: 't1',
        endToEndId: 'E1',
        pspRefundId: 'dev1',
        rtrId: 'D123',
        settledAt: '2026-01-01T00:00:05.000Z',
        failureReason: null,
        amountCents: 1000,
        nature: 'other',
        livemode: false,
      },
    });
    expect(factFromRefund(refundFromDevolucao(devolucao('NAO_REALIZADO')), pix, true)).toMatchObject({
      subject: Subjects.pixRefundFailed,
      payload: { failureReason: 'Devolução não realizada pelo PSP.', livemode: true },
    });
  });

  it('a refund asks for its amount and the reason, cut to what API Pix takes (140 characters)', () => {
    const input = { pspRefundId: 'x', endToEndId: 'E1', amountCents: 1050, description: `${'é'.repeat(139)}😀😀` };
    expect(devolucaoRequestFrom(input)).toEqual({ valor: '10.50', descricao: `${'é'.repeat(139)}😀` });
    expect(devolucaoRequestFrom({ ...input, description: null })).toEqual({ valor: '10.50' });
  });

  it("a cob's BR Code is the charge's copy-and-paste code", () => {
    const cob = { txid: 't1', location: 'psp.example/qr/1', pixCopiaECola: '000201…' } as Cob;
    expect(chargeFromCob(cob)).toEqual({ txid: 't1', location: 'psp.example/qr/1', qrCopyPaste: '000201…' });
  });

  it('a Pix the PSP tells of is a paid fact, or its hold and then the end of its analysis', () => {
    const pix = { endToEndId: 'E1', txid: 't1', valor: '25.50', horario: '2026-01-01T12:00:00Z' };
    const paid = {
      endToEndId: 'E1',
      txid: 't1',
      amountCents: 2550,
      paidAt: '2026-01-01T12:00:00.000Z',
      livemode: false,
    };
    expect(factsFromPix(pix, 2550, false)).toEqual([{ subject: Subjects.pixPaid, msgId: 'E1', payload: paid }]);
    // Each fact carries the mode of the connection whose PSP told it.
    expect(factsFromPix(pix, 2550, true)[0]!.payload).toEqual({ ...paid, livemode: true });
    const held = { subject: Subjects.pixReview, msgId: 'E1:EM_ANALISE', payload: paid };
    expect(factsFromPix({ ...pix, analise: 'EM_ANALISE' }, 2550, false)).toEqual([held]);
    // A listing shows only where the analysis stands: the hold is told first, so a receiver that
    // never heard of it (a lost callback) puts the payment in review before the outcome applies.
    expect(factsFromPix({ ...pix, analise: 'LIBERADO' }, 2550, false)).toEqual([
      held,
      expect.objectContaining({
        subject: Subjects.pixCleared,
        msgId: 'E1:LIBERADO',
        payload: expect.objectContaining({ endToEndId: 'E1', txid: 't1', livemode: false }),
      }),
    ]);
    expect(factsFromPix({ ...pix, analise: 'REJEITADO' }, 2550, false).map((f) => f.subject)).toEqual([
      Subjects.pixReview,
      Subjects.pixRejected,
    ]);
  });
});
