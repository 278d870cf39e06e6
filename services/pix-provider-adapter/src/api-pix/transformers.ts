import {
  brlToCents,
  Subjects,
  type CreateChargeReply,
  type DisputeDecision,
  type MedNature,
  type PixDisputeEvent,
  type PixRefundSettledEvent,
  type RefundNature,
} from '@pix/contracts';
import {
  MAX_JUSTIFICATIVA_CHARS,
  valorFrom,
  type AnalysisState,
  type Cob,
  type CobRequest,
  type DefesaRequest,
  type Devolucao,
  type DevolucaoNatureza,
  type Infracao,
  type PixEntry,
} from '@pix/api-pix';
import type { ChargeAtPsp, CreateChargeInput, InfractionAtPsp, RefundAtPsp, RefundInput } from '../providers/provider';

/**
 * API Pix's words to and from the platform's own: the only place a PSP status or field name is
 * read or written. The rest of the platform knows charges, refunds and Pix facts in its own terms
 * (@pix/contracts).
 */

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

const CHARGE_STATUS: Record<Cob['status'], ChargeAtPsp['status']> = {
  ATIVA: 'active',
  CONCLUIDA: 'concluded',
  REMOVIDA_PELO_USUARIO_RECEBEDOR: 'removed',
  REMOVIDA_PELO_PSP: 'removed',
};

/** A charge as GET /cob answers it: whether it can still be paid, and the Pix it received. */
export function chargeAtPspFrom(cob: Cob): ChargeAtPsp {
  return { status: CHARGE_STATUS[cob.status], pix: cob.pix ?? [] };
}

/** The body of PUT /pix/{e2eid}/devolucao/{id} for a refund of the platform's. */
export function devolucaoRequestFrom(input: RefundInput): { valor: string; descricao?: string } {
  return {
    valor: valorFrom(input.amountCents),
    ...(input.description ? { descricao: [...input.description].slice(0, 140).join('') } : {}),
  };
}

const REFUND_STATUS: Record<Devolucao['status'], RefundAtPsp['status']> = {
  EM_PROCESSAMENTO: 'processing',
  DEVOLVIDO: 'refunded',
  NAO_REALIZADO: 'failed',
};

/** The MED naturezas the platform tells apart; any other (ORIGINAL, RETIRADA, MED_PIX_AUTOMATICO, one BACEN adds) is `other`. */
const REFUND_NATURE: Partial<Record<string, RefundNature>> = {
  MED_FRAUDE: 'med_fraud',
  MED_OPERACIONAL: 'med_operational',
};

/** The natureza of a MED return the sandbox asks of its PSP. */
export const NATUREZA_OF: Record<MedNature, DevolucaoNatureza> = {
  med_fraud: 'MED_FRAUDE',
  med_operational: 'MED_OPERACIONAL',
};

/** A refund (devolução) as the platform knows it. */
export function refundFromDevolucao(devolucao: Devolucao): RefundAtPsp {
  const status = REFUND_STATUS[devolucao.status];
  return {
    pspRefundId: devolucao.id,
    rtrId: devolucao.rtrId,
    status,
    settledAt: status === 'processing' ? null : new Date(devolucao.horario.liquidacao ?? Date.now()).toISOString(),
    failureReason: status === 'failed' ? (devolucao.motivo ?? 'Devolução não realizada pelo PSP.') : null,
    amountCents: brlToCents(Number(devolucao.valor)),
    nature: REFUND_NATURE[devolucao.natureza ?? 'ORIGINAL'] ?? 'other',
  };
}

/**
 * The fact a settled refund is (pix.events.refunded or refund_failed), its message id (one fact per
 * devolução and outcome, whoever tells it: a callback or a read-back) and its body; null while the
 * PSP is still processing it. It carries the devolução's amount and nature: a devolução the PSP made
 * on its own (a MED return) is known to the platform only by this fact.
 */
export function factFromRefund(
  refund: RefundAtPsp,
  pix: { txid: string; endToEndId: string },
  livemode: boolean,
): { subject: string; msgId: string; payload: PixRefundSettledEvent } | null {
  if (refund.status === 'processing') return null;
  return {
    subject: refund.status === 'refunded' ? Subjects.pixRefunded : Subjects.pixRefundFailed,
    msgId: `${pix.endToEndId}:devolucao:${refund.pspRefundId}:${refund.status}`,
    payload: {
      txid: pix.txid,
      endToEndId: pix.endToEndId,
      pspRefundId: refund.pspRefundId,
      rtrId: refund.rtrId,
      settledAt: refund.settledAt ?? new Date().toISOString(),
      failureReason: refund.failureReason,
      ...(refund.amountCents !== null && refund.amountCents > 0 && { amountCents: refund.amountCents }),
      nature: refund.nature,
      livemode,
    },
  };
}

const ANALYSIS_FACT: Record<AnalysisState, string> = {
  EM_ANALISE: Subjects.pixReview,
  LIBERADO: Subjects.pixCleared,
  REJEITADO: Subjects.pixRejected,
};

/** A fact about a received Pix, its JetStream message id (one fact per Pix and kind) and its body. */
export interface PixFact {
  subject: string;
  msgId: string;
  payload: unknown;
}

/**
 * The facts a received Pix is, as the PSP tells it (a callback, GET /pix, GET /cob): paid; or held
 * for review, and then cleared or rejected. A Pix whose analysis ended is told with the hold first:
 * a listing shows only where the analysis stands now, and the receiver may never have heard of the
 * hold (a lost callback). The hold's message id makes it one fact however often it is told.
 * `livemode` is the mode of the connection whose PSP tells it.
 */
export function factsFromPix(pix: PixEntry, amountCents: number, livemode: boolean): PixFact[] {
  const paid = { ...paidFact(pix, amountCents), livemode };
  if (!pix.analise) return [{ subject: Subjects.pixPaid, msgId: pix.endToEndId, payload: paid }];
  const held = { subject: ANALYSIS_FACT.EM_ANALISE, msgId: `${pix.endToEndId}:EM_ANALISE`, payload: paid };
  if (pix.analise === 'EM_ANALISE') return [held];
  return [
    held,
    {
      subject: ANALYSIS_FACT[pix.analise],
      msgId: `${pix.endToEndId}:${pix.analise}`,
      payload: { endToEndId: pix.endToEndId, txid: pix.txid, decidedAt: new Date().toISOString(), livemode },
    },
  ];
}

function paidFact(pix: PixEntry, amountCents: number) {
  return { endToEndId: pix.endToEndId, txid: pix.txid, amountCents, paidAt: new Date(pix.horario).toISOString() };
}

const DECISION: Partial<Record<string, DisputeDecision>> = {
  ACEITA: 'accepted',
  REJEITADA: 'rejected',
  CANCELADA_EFI: 'cancelled',
};

/** An infraction as the platform knows it; a status it does not know is read as still open (the money stays blocked). */
export function infractionFrom(infracao: Infracao): InfractionAtPsp {
  return {
    pspDisputeId: infracao.idInfracao,
    endToEndId: infracao.endToEndId,
    amountCents: brlToCents(Number(infracao.valor)),
    reason: infracao.motivo,
    kind: infracao.tipoSituacao,
    decision: DECISION[infracao.status] ?? null,
    deadlineAt: infracao.prazo,
    openedAt: infracao.horario.criacao,
    changedAt: infracao.horario.atualizacao,
  };
}

/**
 * The facts an infraction is (pix.events.dispute_opened, and dispute_closed once decided), each
 * with a message id of the infraction and its state: told by every listing that shows it, stored
 * once. A decided one is told opened first: the receiver may never have seen it open.
 */
export function factsFromInfraction(infraction: InfractionAtPsp, txid: string, livemode: boolean): PixFact[] {
  if (infraction.amountCents === null || infraction.amountCents <= 0) return [];
  const opened: PixDisputeEvent = {
    txid,
    endToEndId: infraction.endToEndId,
    pspDisputeId: infraction.pspDisputeId,
    reason: infraction.reason,
    kind: infraction.kind,
    amountCents: infraction.amountCents,
    deadlineAt: infraction.deadlineAt,
    openedAt: infraction.openedAt,
    livemode,
  };
  const facts: PixFact[] = [
    { subject: Subjects.pixDisputeOpened, msgId: `dispute:${infraction.pspDisputeId}:opened`, payload: opened },
  ];
  if (infraction.decision) {
    const closed: PixDisputeEvent = { ...opened, decision: infraction.decision, decidedAt: infraction.changedAt };
    facts.push({
      subject: Subjects.pixDisputeClosed,
      msgId: `dispute:${infraction.pspDisputeId}:closed`,
      payload: closed,
    });
  }
  return facts;
}

/** The body of POST …/infracoes/{id}/defesa: the merchant contests the claim (rejeitado) with its text. */
export function defesaRequestFrom(text: string): DefesaRequest {
  return { analise: 'rejeitado', justificativa: [...text].slice(0, MAX_JUSTIFICATIVA_CHARS).join('') };
}
