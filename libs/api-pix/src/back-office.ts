import { z } from 'zod';
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

/** A refusal: the platform's domain error code (charge_not_found, charge_paid_otherwise, …) or a malformed request's. */
export const BackOfficeRefusalSchema = z.object({ error: z.string() });
