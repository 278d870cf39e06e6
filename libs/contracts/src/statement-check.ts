import { z } from 'zod';
import { dayStart, isDay, isStatementDay, nextDay, previousDay, statementDay } from './balance';
import { MODE_NAMES } from './modes';

/**
 * The statement check (docs/decisions/statement-check.md): each night payments compares every PSP
 * connection's listing of the day before (GET /pix, the devoluções inside each Pix) with that day's
 * balance transactions, and stores what differs, one document per day and connection.
 */

/** A devolução as the PSP lists it inside its Pix: its amount and status (EM_PROCESSAMENTO, DEVOLVIDO, NAO_REALIZADO). */
export const ListedDevolucaoSchema = z.object({
  id: z.string(),
  amountCents: z.number().int(),
  status: z.string(),
});
export type ListedDevolucao = z.infer<typeof ListedDevolucaoSchema>;

/** A Pix as the PSP lists it, in centavos. */
export const ListedPixSchema = z.object({
  endToEndId: z.string(),
  txid: z.string().nullable(),
  amountCents: z.number().int(),
  horario: z.string(),
  devolucoes: z.array(ListedDevolucaoSchema),
});
export type ListedPix = z.infer<typeof ListedPixSchema>;

/** Pix read one by one at most per request (those a day's movements name that its listing did not hold). */
export const PIX_READ_MAX = 50;

/**
 * What differs between the PSP and the platform:
 * - `pix_unknown`: the PSP lists a Pix received that day, the platform has no movement for it;
 * - `pix_not_at_psp`: the platform recorded a Pix received the PSP does not have;
 * - `amount_differs`: both have the Pix, with different amounts;
 * - `refund_missing`: the PSP returned money (a devolução DEVOLVIDO) the platform has no movement for;
 * - `refund_not_at_psp`: the platform recorded a refund the PSP shows as not returned (or not at all).
 */
export const STATEMENT_DIFFERENCE_KINDS = [
  'pix_unknown',
  'pix_not_at_psp',
  'amount_differs',
  'refund_missing',
  'refund_not_at_psp',
] as const;
export type StatementDifferenceKind = (typeof STATEMENT_DIFFERENCE_KINDS)[number];

export const StatementDifferenceSchema = z.object({
  kind: z.enum(STATEMENT_DIFFERENCE_KINDS),
  endToEndId: z.string(),
  /** The PSP's amount (a Pix's valor, a devolução's), null when the PSP has none. */
  pspCents: z.number().int().nullable(),
  /** The platform's amount (positive, money in or out alike), null when it has none. */
  platformCents: z.number().int().nullable(),
  /** The devolução's status at the PSP, for a refund the PSP holds in another status than DEVOLVIDO. */
  pspStatus: z.string().nullable(),
  /** The payment the platform's movement belongs to, when it has one. */
  paymentId: z.string().nullable(),
});
export type StatementDifference = z.infer<typeof StatementDifferenceSchema>;

/** Differences a stored check keeps at most (the count says how many there were). */
export const STATEMENT_DIFFERENCES_KEPT = 1000;

/** One day of one connection, checked. */
export const StatementCheckResultSchema = z.object({
  day: z.string(),
  connection: z.enum(MODE_NAMES),
  livemode: z.boolean(),
  checkedAt: z.iso.datetime({ precision: 3 }),
  /** Pix the PSP listed (or read one by one) and movements of the platform compared. */
  pixAtPsp: z.number().int(),
  movements: z.number().int(),
  differenceCount: z.number().int(),
  differences: z.array(StatementDifferenceSchema),
});
export type StatementCheckResult = z.infer<typeof StatementCheckResultSchema>;

/** What every payments replica is told of a check just stored (Notices.statementChecked): its figures. */
export const StatementCheckedSchema = StatementCheckResultSchema.omit({ differences: true });
export type StatementChecked = z.infer<typeof StatementCheckedSchema>;

/** Check results listed at most by the admin command. */
export const STATEMENT_CHECK_LIST_MAX = 62;

/** A day to check now: any day of Pix up to today (São Paulo), today's so far. */
export const StatementCheckRunRequestSchema = z.object({
  date: z
    .string()
    .refine((day) => isDay(day) && isStatementDay(day), 'a day AAAA-MM-DD of Pix, up to today (São Paulo)'),
});
export const StatementCheckListRequestSchema = z.object({
  limit: z.number().int().min(1).max(STATEMENT_CHECK_LIST_MAX),
});
export const StatementCheckReplySchema = z.object({ results: z.array(StatementCheckResultSchema) });
export type StatementCheckReply = z.infer<typeof StatementCheckReplySchema>;

/** The São Paulo hour the nightly check runs, for the day before: the PSP's day is closed by then. */
export const STATEMENT_CHECK_HOUR = 3;

/** The nightly check's scheduled message: the day it checks. */
export const StatementCheckDueSchema = z.object({ day: z.string().refine(isDay) });
export type StatementCheckDue = z.infer<typeof StatementCheckDueSchema>;

/** The next nightly check after `now`: the day it checks, and when (STATEMENT_CHECK_HOUR of the day after it). */
export function nextStatementCheck(now: Date): { day: string; at: Date } {
  const hour = STATEMENT_CHECK_HOUR * 60 * 60 * 1000;
  const today = statementDay(now);
  const todays = new Date(dayStart(today).getTime() + hour);
  if (todays > now) return { day: previousDay(today), at: todays };
  return { day: today, at: new Date(dayStart(nextDay(today)).getTime() + hour) };
}
