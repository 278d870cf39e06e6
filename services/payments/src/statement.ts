import {
  centsToBrl,
  dayStart,
  monthDays,
  nextDay,
  STATEMENT_TIME_ZONE,
  type BalanceExportPage,
  type BalanceListQuery,
  type BalanceTransaction,
  type BalanceTransactionList,
  type ExportCursor,
  type Statement,
  type StatementMonth,
  type StatementTotals,
} from '@pix/contracts';
import type { BalanceTransactions } from './balance-store';
import { emptyTotals } from './balance-store';
import type { DisputeRecord } from './disputes';
import type { BalanceMovement } from './model';
import type { StoreScope } from './payment-storage';

/** A store's balance transactions and statements, as the public API and the dashboard read them. */

export function toBalanceTransaction(moved: BalanceMovement): BalanceTransaction {
  return {
    id: moved.id,
    type: moved.type,
    amount: centsToBrl(moved.amountCents),
    paymentId: moved.paymentId,
    refundId: moved.refundId,
    endToEndId: moved.endToEndId,
    origin: moved.origin,
    nature: moved.nature,
    connection: moved.connection,
    livemode: moved.livemode,
    createdAt: moved.createdAt.toISOString(),
  };
}

export async function listBalanceTransactions(
  balance: BalanceTransactions,
  scope: StoreScope,
  query: BalanceListQuery,
): Promise<BalanceTransactionList> {
  const { items, total } = await balance.list(scope, query);
  return { items: items.map(toBalanceTransaction), page: query.page, limit: query.limit, total };
}

export async function exportBalancePage(
  balance: BalanceTransactions,
  scope: StoreScope,
  request: { from: string; to: string; cursor: ExportCursor | null; limit: number },
): Promise<BalanceExportPage> {
  const page = await balance.exportPage(scope, request.from, request.to, request.cursor, request.limit);
  return { items: page.items.map(toBalanceTransaction), next: page.next };
}

/** The store's disputes open at some instant from `since` on (PaymentStore.disputesSince). */
export type DisputesSince = (scope: StoreScope, since: Date) => Promise<DisputeRecord[]>;

/**
 * What is at risk in the store's open disputes at the end of each day: the amounts of the disputes
 * opened by then and not closed by then (the PSP holds that money until it decides).
 */
async function atRiskOn(
  disputes: DisputesSince,
  scope: StoreScope,
  days: string[],
): Promise<Map<string, { cents: number; count: number }>> {
  const risk = new Map(days.map((day) => [day, { cents: 0, count: 0 }]));
  if (days.length === 0) return risk;
  const first = [...days].sort()[0]!;
  const known = await disputes(scope, dayStart(nextDay(first)));
  for (const day of days) {
    const end = dayStart(nextDay(day));
    const open = known.filter((d) => d.openedAt < end && (d.closedAt === null || d.closedAt >= end));
    risk.set(day, { cents: open.reduce((sum, d) => sum + d.amountCents, 0), count: open.length });
  }
  return risk;
}

function statementOf(
  scope: StoreScope,
  date: string,
  totals: StatementTotals,
  atRisk: { cents: number; count: number },
): Statement {
  const net = totals.receivedCents - totals.refundedCents - totals.medReturnedCents;
  return {
    date,
    timeZone: STATEMENT_TIME_ZONE,
    livemode: scope.livemode,
    received: centsToBrl(totals.receivedCents),
    refunded: centsToBrl(totals.refundedCents),
    returnedByMed: centsToBrl(totals.medReturnedCents),
    atRisk: centsToBrl(atRisk.cents),
    net: centsToBrl(net),
    counts: {
      received: totals.receivedCount,
      refunded: totals.refundedCount,
      returnedByMed: totals.medReturnedCount,
      atRisk: atRisk.count,
    },
  };
}

/** The store's statement of one São Paulo day. */
export async function statementOfDay(
  balance: BalanceTransactions,
  disputes: DisputesSince,
  scope: StoreScope,
  date: string,
): Promise<Statement> {
  const [totals, risk] = await Promise.all([balance.totals(scope, date, date), atRiskOn(disputes, scope, [date])]);
  return statementOf(scope, date, totals.get(date) ?? emptyTotals(), risk.get(date) ?? { cents: 0, count: 0 });
}

/** The store's statement of each day of a month (AAAA-MM) that had a movement: one aggregate. */
export async function statementOfMonth(
  balance: BalanceTransactions,
  disputes: DisputesSince,
  scope: StoreScope,
  month: string,
): Promise<StatementMonth> {
  const { from, to } = monthDays(month);
  const totals = await balance.totals(scope, from, to);
  const days = [...totals.keys()].sort();
  const risk = await atRiskOn(disputes, scope, days);
  return {
    month,
    days: days.map((day) => statementOf(scope, day, totals.get(day)!, risk.get(day) ?? { cents: 0, count: 0 })),
  };
}
