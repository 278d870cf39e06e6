import {
  AdapterRpc,
  dayStart,
  modeName,
  nextDay,
  nextStatementCheck,
  StatementCheckDueSchema,
  Subjects,
  type ListedPix,
  type StatementChecked,
  type StatementCheckResult,
} from '@pix/contracts';
import { callRpc, publishEvent, type HandlerOutcome, type JetStreamClient, type NatsConnection } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import type { BalanceTransactions } from './balance-store';
import { statementCheckRuns } from './metrics';
import type { StatementChecks } from './statement-check-store';
import { compareDayByWindows, type DaySources } from './statement-windows';

/**
 * The nightly statement check (docs/decisions/statement-check.md): for each PSP connection, the
 * PSP's listing of a São Paulo day (asked of the adapter, a page at a time) against the platform's
 * balance transactions of that day, a window of the day at a time (statement-windows.ts), every
 * difference stored (statement-check-store.ts) and told to every replica's gauges
 * (statement-check-metrics.ts).
 */

export interface StatementCheckDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  balance: BalanceTransactions;
  checks: StatementChecks;
  logger: Logger;
}

/** How long one page or read of the PSP may take through the adapter (its own retries included). */
const PSP_CALL_MS = 60_000;
/** How often a nightly check that could not reach a PSP is tried again, and how many times in all. */
const RETRY_MS = 5 * 60_000;
const MAX_DELIVERIES = 24;
/** Both connections, test first; one the adapter has not configured is skipped. */
const CONNECTIONS = [false, true] as const;
/**
 * Pages of the PSP's listing one window of the day may hold (5,000 Pix at API Pix's 100 a page):
 * a window with more is halved, so a day's check holds about that many Pix and their movements
 * in memory at once, whatever the day's volume (statement-windows.ts).
 */
const WINDOW_PAGES = 50;

/** The check's reads of one connection: the PSP's through the adapter, the movements from the database. */
function sourcesOf(deps: StatementCheckDeps, livemode: boolean): DaySources {
  return {
    async listed(window, mayHalve) {
      const from = window.from.toISOString();
      const to = window.to.toISOString();
      const pix: ListedPix[] = [];
      for (let page = 0, pages = 1; page < pages; page++) {
        const reply = await callRpc(deps.nc, AdapterRpc.listPix, { livemode, from, to, page }, PSP_CALL_MS);
        if (reply.connection === 'not_configured') return 'not_configured';
        pages = reply.pages;
        if (mayHalve && pages > WINDOW_PAGES) return 'too_many';
        pix.push(...reply.pix);
      }
      return { pix };
    },
    movedWithin: (window) => deps.balance.within(livemode, window.from, window.to),
    movementsOf: (endToEndIds) => deps.balance.ofPix(livemode, endToEndIds),
    read: (endToEndIds) => callRpc(deps.nc, AdapterRpc.readPix, { livemode, endToEndIds }, PSP_CALL_MS),
  };
}

/** Checks one day of one connection and stores it; null when the adapter has no such connection. */
async function checkConnection(
  deps: StatementCheckDeps,
  livemode: boolean,
  day: string,
): Promise<StatementCheckResult | null> {
  const whole = { from: dayStart(day), to: dayStart(nextDay(day)) };
  const compared = await compareDayByWindows(day, whole, sourcesOf(deps, livemode));
  if (!compared) return null;
  const { pixAtPsp, movements, differences } = compared;
  const result: StatementCheckResult = {
    day,
    connection: modeName(livemode),
    livemode,
    checkedAt: new Date().toISOString(),
    pixAtPsp,
    movements,
    differenceCount: differences.length,
    differences,
  };
  await deps.checks.save(result);
  // Every replica's gauges show it (statement-check-metrics.ts).
  const { differences: _kept, ...figures } = result;
  deps.nc.publish(Subjects.statementChecked, JSON.stringify(figures satisfies StatementChecked));
  statementCheckRuns.inc({ connection: result.connection, outcome: 'completed' });
  const line = { day, connection: result.connection, pixAtPsp, differences: differences.length };
  if (differences.length > 0) deps.logger.warn(line, 'the statement differs from the PSP');
  else deps.logger.info(line, 'the statement matches the PSP');
  return result;
}

/** Checks a day on each connection (those not checked yet for it, with `onlyUnchecked`), in turn. */
async function checkConnections(
  deps: StatementCheckDeps,
  day: string,
  onlyUnchecked: boolean,
): Promise<StatementCheckResult[]> {
  const results: StatementCheckResult[] = [];
  for (const livemode of CONNECTIONS) {
    const connection = modeName(livemode);
    if (onlyUnchecked && (await deps.checks.has(connection, day))) continue;
    const result = await checkConnection(deps, livemode, day).catch((err: unknown) => {
      statementCheckRuns.inc({ connection, outcome: 'failed' });
      throw err;
    });
    if (result) results.push(result);
  }
  return results;
}

/** Checks a day on every connection now (the admin command): a day checked before is checked again. */
export function checkDay(deps: StatementCheckDeps, day: string): Promise<StatementCheckResult[]> {
  return checkConnections(deps, day, false);
}

/**
 * Schedules the next nightly check, on its one subject (a schedule replaces the one waiting there):
 * at start, so a stack always has one, and by each check for the next night. Its id is the day, so
 * replicas starting together publish it once.
 */
export async function scheduleNextCheck(js: JetStreamClient, now = new Date()): Promise<void> {
  const next = nextStatementCheck(now);
  await publishEvent(js, Subjects.statementCheckSchedule, { day: next.day }, `statement-check:${next.day}`, {
    schedule: { at: next.at, target: Subjects.statementCheckDue },
  });
}

/**
 * The nightly check fell due (a scheduled message on Subjects.statementCheckDue): the next night's
 * is scheduled first, then each connection not checked for that day yet is. One whose PSP (or the
 * adapter) cannot be read is tried again every RETRY_MS, at most MAX_DELIVERIES times; after that
 * its day stays unchecked, which statement_check_last_success_timestamp_seconds shows.
 */
export async function onStatementCheckDue(
  deps: StatementCheckDeps,
  raw: unknown,
  delivery: number,
): Promise<HandlerOutcome> {
  const parsed = StatementCheckDueSchema.safeParse(raw);
  if (!parsed.success) {
    deps.logger.error({ issues: parsed.error.issues }, 'malformed statement check message; dropped');
    return { ack: true };
  }
  const { day } = parsed.data;
  await scheduleNextCheck(deps.js);
  try {
    await checkConnections(deps, day, true);
    return { ack: true };
  } catch (err) {
    if (delivery >= MAX_DELIVERIES) {
      deps.logger.error({ err, day, delivery }, 'the statement check failed every try: the day stays unchecked');
      return { ack: true };
    }
    deps.logger.warn({ err, day, delivery }, 'the statement check could not finish; tried again later');
    return { ack: false, retryInMs: RETRY_MS };
  }
}
