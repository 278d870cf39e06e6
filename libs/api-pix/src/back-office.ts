import { z } from 'zod';
import { INFRACAO_DECIDED, INFRACAO_SITUACOES } from './infractions';
import { ANALYSIS_STATES, DEVOLUCAO_NATUREZAS, DevolucaoSchema, Valor } from './wire';

/**
 * The PSP simulator's back office: not API Pix, but the payer's side and the PSP's staff that a
 * sandbox plays by hand (services/psp-simulator serves it, the adapter's sandbox commands call it).
 * Its words are API Pix's (valor, horario, analise, motivo); charges are named by txid.
 */
export const BackOfficePaths = {
  pay: (txid: string) => `cob/${encodeURIComponent(txid)}/pay`,
  review: (txid: string) => `cob/${encodeURIComponent(txid)}/review`,
  clear: (txid: string) => `cob/${encodeURIComponent(txid)}/clear`,
  reject: (txid: string) => `cob/${encodeURIComponent(txid)}/reject`,
  failNextRefund: (txid: string) => `cob/${encodeURIComponent(txid)}/fail-next-refund`,
  /** The PSP returns a received Pix on its own (a MED return): named by the Pix, as API Pix's devoluções are. */
  med: (endToEndId: string) => `pix/${encodeURIComponent(endToEndId)}/med`,
  /** The same, of the Pix that paid a charge: how the sandbox asks it by payment. */
  medOfCharge: (txid: string) => `cob/${encodeURIComponent(txid)}/med`,
  /** The payer's PSP files an infraction (a MED claim) against a received Pix. */
  infraction: (endToEndId: string) => `pix/${encodeURIComponent(endToEndId)}/infracao`,
  /** An infraction as the PSP holds it (its defence included), and the PSP's decision of it. */
  infractionOf: (idInfracao: string) => `infracoes/${encodeURIComponent(idInfracao)}`,
  decideInfraction: (idInfracao: string) => `infracoes/${encodeURIComponent(idInfracao)}/decide`,
} as const;

export const BackOfficePayBodySchema = z
  .object({
    /** What the payer sends (the charge's amount when absent). */
    valor: Valor.optional(),
    /** A Pix to a charge that can no longer be paid (paid, expired, removed): each call a new Pix. */
    late: z.boolean().optional(),
    /** The PSP takes the Pix and lists it, but loses its callback: only a reconciliation finds it. */
    dropCallback: z.boolean().optional(),
  })
  .strict();

/** A Pix the payer sent, as the back office answers it (with its analysis when the PSP held it). */
export const BackOfficePixSchema = z.object({
  txid: z.string(),
  endToEndId: z.string(),
  valor: Valor,
  horario: z.string(),
  analise: z.enum(ANALYSIS_STATES).optional(),
});
export type BackOfficePix = z.infer<typeof BackOfficePixSchema>;

export const BackOfficeFailNextRefundBodySchema = z.object({ motivo: z.string().min(1).max(140).optional() }).strict();
export const BackOfficeFailNextRefundSchema = z.object({ txid: z.string(), motivo: z.string() });

/**
 * POST /pix/{e2eid}/med: the PSP makes a devolução of the Pix on its own, under an id of its own, as
 * it does when a MED claim is upheld. It settles a moment later and reaches the receiver as any
 * devolução does (the callback, GET /pix/{e2eid}, GET /pix).
 */
export const BackOfficeMedBodySchema = z
  .object({
    /** How much goes back (what is left of the Pix when absent); at most the Pix's amount. */
    valor: Valor.optional(),
    /** MED_FRAUDE when absent. */
    natureza: z.enum(DEVOLUCAO_NATUREZAS).optional(),
    /** The PSP settles it and lists it, but loses its callback: only a reconciliation finds it. */
    dropCallback: z.boolean().optional(),
  })
  .strict();

/** The devolução the PSP made, and the Pix it returns. */
export const BackOfficeMedSchema = z.object({ txid: z.string(), endToEndId: z.string(), devolucao: DevolucaoSchema });
export type BackOfficeMed = z.infer<typeof BackOfficeMedSchema>;

/**
 * POST /pix/{e2eid}/infracao: the payer's PSP files an infraction (a MED claim) against a received
 * Pix, as Efí then lists it (GET /v2/gn/infracoes). Its prazo may be in the past, to play a claim
 * the receiver heard of too late.
 */
export const BackOfficeInfractionBodySchema = z
  .object({
    /** How much the claim blocks (the whole Pix when absent); at most the Pix's amount. */
    valor: Valor.optional(),
    /** The claim as the payer's PSP reports it. */
    motivo: z.string().min(1).max(2000).optional(),
    tipoSituacao: z.enum(INFRACAO_SITUACOES).optional(),
    /** The receiver's deadline to answer (RFC 3339); seven days ahead when absent. */
    prazo: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

/** POST /infracoes/{id}/decide: the PSP decides the infraction (ACEITA: upheld; REJEITADA; CANCELADA_EFI). */
export const BackOfficeDecideBodySchema = z.object({ status: z.enum(INFRACAO_DECIDED) }).strict();

/** A refusal: the platform's domain error code (charge_not_found, charge_paid_otherwise, …) or a malformed request's. */
export const BackOfficeRefusalSchema = z.object({ error: z.string() });
