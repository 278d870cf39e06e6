import { centsToBrl, Subjects, type CreateChargeReply, type CreateRefundReply } from '@pix/contracts';
import type { CreateChargeInput } from '../providers/provider';
import type { AnalysisState, Cob, CobRequest, Devolucao, PixCallback } from './wire';

/**
 * API Pix's words to and from the platform's own: the only place a PSP status or field name is
 * read or written. The rest of the platform knows charges, refunds and Pix facts in its own terms
 * (@pix/contracts).
 */

/** An amount as API Pix writes it: BRL with two decimals, as a string ("25.50"). */
export function valorFrom(amountCents: number): string {
  return centsToBrl(amountCents).toFixed(2);
}

/** The body of PUT /cob/{txid} for a charge of the platform's. */
export function cobRequestFrom(input: CreateChargeInput, pixKey: string): CobRequest {
  return {
    calendario: { expiracao: input.expiresInSeconds },
    valor: { original: valorFrom(input.amountCents) },
    chave: pixKey,
    ...(input.description ? { solicitacaoPagador: input.description.slice(0, 140) } : {}),
  };
}

/** A charge (cob) as the platform knows it: its BR Code is the payment's copy-and-paste code. */
export function chargeFromCob(cob: Cob): CreateChargeReply {
  return { txid: cob.txid, location: cob.location, qrCopyPaste: cob.pixCopiaECola };
}

const REFUND_STATUS: Record<Devolucao['status'], CreateRefundReply['status']> = {
  EM_PROCESSAMENTO: 'processing',
  DEVOLVIDO: 'refunded',
  NAO_REALIZADO: 'failed',
};

/** A refund (devolução) as the platform knows it. */
export function refundFromDevolucao(devolucao: Devolucao): CreateRefundReply {
  return { refundId: devolucao.id, rtrId: devolucao.rtrId, status: REFUND_STATUS[devolucao.status] };
}

type CallbackPix = PixCallback['pix'][number];

const ANALYSIS_FACT: Record<AnalysisState, string> = {
  EM_ANALISE: Subjects.pixReview,
  LIBERADO: Subjects.pixCleared,
  REJEITADO: Subjects.pixRejected,
};

/**
 * The fact a callback entry is (paid, held for review, cleared, rejected), its JetStream message id
 * (one fact per Pix and kind) and its body.
 */
export function factFromCallback(
  pix: CallbackPix,
  amountCents: number,
): { subject: string; msgId: string; payload: unknown } {
  if (!pix.analise) {
    return { subject: Subjects.pixPaid, msgId: pix.endToEndId, payload: paidFact(pix, amountCents) };
  }
  const subject = ANALYSIS_FACT[pix.analise];
  const msgId = `${pix.endToEndId}:${pix.analise}`;
  if (pix.analise === 'EM_ANALISE') return { subject, msgId, payload: paidFact(pix, amountCents) };
  return {
    subject,
    msgId,
    payload: { endToEndId: pix.endToEndId, txid: pix.txid, decidedAt: new Date().toISOString() },
  };
}

function paidFact(pix: CallbackPix, amountCents: number) {
  return { endToEndId: pix.endToEndId, txid: pix.txid, amountCents, paidAt: new Date(pix.horario).toISOString() };
}
