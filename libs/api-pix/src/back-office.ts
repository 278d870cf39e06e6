import { z } from 'zod';
import { ANALYSIS_STATES, Valor } from './wire';

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

/** A refusal: the platform's domain error code (charge_not_found, charge_paid_otherwise, …) or a malformed request's. */
export const BackOfficeRefusalSchema = z.object({ error: z.string() });
