import { z } from 'zod';
import { LivemodeSchema, MODE_NAMES } from './modes';
import { LIST_BOUNDS } from './payment';
import { REFUND_NATURES, REFUND_ORIGINS } from './refund';

/**
 * A store's balance (docs/decisions/balance-transactions.md): every movement of its money is one
 * immutable balance transaction, recorded by the payment write that moves the money.
 *
 * - `pix_received` (+): the Pix that paid a payment (approved, or held in review).
 * - `refund` (−): a refund of it the merchant or the platform asked for, or one the PSP made on its
 *   own for another reason than MED, when it succeeded.
 * - `med_return` (−): a devolução the PSP made on its own under MED (nature med_fraud or med_operational).
 * - `late_pix_received` (+) and `late_pix_returned` (−): a Pix that arrived for a payment no longer
 *   pending, and its return to its payer once that succeeded.
 */
export const BALANCE_TRANSACTION_TYPES = [
  'pix_received',
  'refund',
  'med_return',
  'late_pix_received',
  'late_pix_returned',
] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/** A statement's days are São Paulo's, as a Brazilian store's bank statement is. */
export const STATEMENT_TIME_ZONE = 'America/Sao_Paulo';
/** The first day a statement covers: Pix opened to everyone on 16 November 2020. */
export const STATEMENT_FIRST_DAY = '2020-11-16';

const dayFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: STATEMENT_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The São Paulo day (AAAA-MM-DD) an instant falls on. */
export function statementDay(at: Date): string {
  return dayFormat.format(at);
}

/** Minutes São Paulo's clock is behind UTC at an instant (180 since 2019; the zone database says). */
function offsetMinutes(at: Date): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: STATEMENT_TIME_ZONE,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(at)
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return Math.round((at.getTime() - local) / 60_000);
}

/** The instant a São Paulo day (AAAA-MM-DD) begins. */
export function dayStart(day: string): Date {
  const midnightUtc = new Date(`${day}T00:00:00.000Z`);
  return new Date(midnightUtc.getTime() + offsetMinutes(midnightUtc) * 60_000);
}

/** The day after a day (AAAA-MM-DD). */
export function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The day before a day (AAAA-MM-DD). */
export function previousDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

/** The first and last day of a month (AAAA-MM). */
export function monthDays(month: string): { from: string; to: string } {
  const first = new Date(`${month}-01T00:00:00.000Z`);
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
  return { from: `${month}-01`, to: last.toISOString().slice(0, 10) };
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day written AAAA-MM-DD (2026-02-30 is none). */
export function isDay(value: unknown): boolean {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  // A day past its month's end (2026-02-30, 2026-13-01) is no date, or another one.
  const at = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().startsWith(value);
}

/** A day a statement may be asked for: from the first day of Pix to today in São Paulo. */
export function isStatementDay(day: string, now = new Date()): boolean {
  return day >= STATEMENT_FIRST_DAY && day <= statementDay(now);
}

/** A balance transaction as the public API returns it. */
export const BalanceTransactionSchema = z.object({
  id: z.string().meta({ description: 'Stable: the same movement always has the same id' }),
  type: z.enum(BALANCE_TRANSACTION_TYPES).meta({
    description:
      'pix_received (+): the Pix that paid a payment; refund (−): a refund of it that succeeded (asked by the ' +
      'merchant or the platform, or made by the PSP for a reason other than MED); med_return (−): a devolução the ' +
      'PSP made under MED; late_pix_received (+) and late_pix_returned (−): a Pix that arrived for a payment no ' +
      'longer pending, and its automatic return',
  }),
  amount: z.number().meta({ description: 'BRL, signed: positive in, negative out; at most two decimal places' }),
  paymentId: z.uuid(),
  refundId: z.uuid().nullable().meta({ description: 'The refund that moved the money out; null for money in' }),
  endToEndId: z.string().meta({ description: 'The Pix moved (API Pix endToEndId)' }),
  origin: z
    .enum(REFUND_ORIGINS)
    .nullable()
    .meta({ description: "The refund's origin (merchant, platform, psp); null for money in" }),
  nature: z.enum(REFUND_NATURES).nullable().meta({ description: 'Why the PSP returned it, for origin psp' }),
  connection: z.enum(MODE_NAMES).meta({ description: 'The PSP connection that moved it (test or live)' }),
  livemode: LivemodeSchema,
  createdAt: z.iso.datetime({ precision: 3 }).meta({
    description: 'When the money moved: the Pix settled at the PSP, or the refund was settled',
  }),
});
export type BalanceTransaction = z.infer<typeof BalanceTransactionSchema>;

export const BalanceTransactionListSchema = z.object({
  items: z.array(BalanceTransactionSchema),
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int().meta({ description: 'Balance transactions matching the filter' }),
});
export type BalanceTransactionList = z.infer<typeof BalanceTransactionListSchema>;

/** A day's sums in centavos, by what moved (the statement's lines). */
export const StatementTotalsSchema = z.object({
  receivedCents: z.number().int(),
  receivedCount: z.number().int(),
  refundedCents: z.number().int(),
  refundedCount: z.number().int(),
  medReturnedCents: z.number().int(),
  medReturnedCount: z.number().int(),
});
export type StatementTotals = z.infer<typeof StatementTotalsSchema>;

const brl = (description: string) => z.number().meta({ description: `BRL: ${description}` });
const count = (description: string) => z.number().int().meta({ description });

/** A store's statement of one day, as the public API returns it. */
export const StatementSchema = z.object({
  date: z.string().meta({ description: 'The day (AAAA-MM-DD), in America/Sao_Paulo' }),
  timeZone: z.literal(STATEMENT_TIME_ZONE),
  livemode: LivemodeSchema,
  received: brl('Pix received (pix_received and late_pix_received)'),
  refunded: brl('refunds that succeeded, MED returns apart (refund and late_pix_returned), as a positive sum'),
  returnedByMed: brl('returned by the PSP under MED (med_return), as a positive sum'),
  atRisk: brl('at risk in open disputes (infrações) of the store'),
  net: brl('received − refunded − returnedByMed'),
  counts: z.object({
    received: count('Pix received'),
    refunded: count('refunds'),
    returnedByMed: count('MED returns'),
    atRisk: count('open disputes'),
  }),
});
export type Statement = z.infer<typeof StatementSchema>;

/** A month of statements, a day per line (the dashboard's Extrato); days with no movement are left out. */
export const StatementMonthSchema = z.object({
  month: z.string(),
  days: z.array(StatementSchema),
});
export type StatementMonth = z.infer<typeof StatementMonthSchema>;

/** The balance transactions' query, as payments takes it: days inclusive; absent, since the first or until today. */
export const BalanceListQuerySchema = z.object({
  page: z.number().int().min(1).max(LIST_BOUNDS.maxPage),
  limit: z.number().int().min(1).max(LIST_BOUNDS.maxLimit),
  from: z.string().refine(isDay).optional(),
  to: z.string().refine(isDay).optional(),
  type: z.enum(BALANCE_TRANSACTION_TYPES).optional(),
});
export type BalanceListQuery = z.infer<typeof BalanceListQuerySchema>;

/** Where a CSV export goes on (payments' balance-store.ts says how it pages). */
export const ExportCursorSchema = z.object({ after: z.string(), windowMs: z.number().positive() });
export type ExportCursor = z.infer<typeof ExportCursorSchema>;

/** A page of an export, oldest first, and its next cursor (null: it was the last). */
export const BalanceExportPageSchema = z.object({
  items: z.array(BalanceTransactionSchema),
  next: ExportCursorSchema.nullable(),
});
export type BalanceExportPage = z.infer<typeof BalanceExportPageSchema>;

/** Movements an export page holds at most: a CSV of a day of 100,000 is a hundred pages, one in memory at a time. */
export const EXPORT_PAGE_LIMIT = 1000;

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** A month written AAAA-MM. */
export function isMonth(value: unknown): boolean {
  return typeof value === 'string' && MONTH.test(value);
}

/** How a statement names things to people (the dashboard's Extrato, the CSV): Portuguese. */
export const StatementTexts = {
  types: {
    pix_received: 'Pix recebido',
    refund: 'Reembolso',
    med_return: 'Devolução MED',
    late_pix_received: 'Pix tardio recebido',
    late_pix_returned: 'Pix tardio devolvido',
  } satisfies Record<BalanceTransactionType, string>,
  origins: { merchant: 'Loja', platform: 'Plataforma', psp: 'PSP' } satisfies Record<
    (typeof REFUND_ORIGINS)[number],
    string
  >,
  natures: { med_fraud: 'MED fraude', med_operational: 'MED operacional', other: 'Outra' } satisfies Record<
    (typeof REFUND_NATURES)[number],
    string
  >,
  csvColumns: [
    'Data',
    'Hora',
    'Tipo',
    'Valor (R$)',
    'Pagamento',
    'Reembolso',
    'EndToEndId',
    'Origem',
    'Natureza',
    'Conexão',
    'ID',
  ],
} as const;
