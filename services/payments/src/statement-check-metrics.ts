import type { StatementCheckResult } from '@pix/contracts';
import { Gauge, type Logger, type Registry } from '@pix/observability';
import type { StatementChecks } from './statement-check-store';

/** How long the stored checks read for a scrape are reused: a scrape interval (k8s/src/monitoring.ts). */
const READ_EVERY_MS = 15_000;
/** Checks read for the metrics: the newest days of both connections, and room for a day checked again. */
const NEWEST = 8;

/**
 * The newest stored check of each connection as gauges, read from `statement_checks` when scraped
 * (at most one command per scrape interval, 15 s, per replica), so every replica tells the same figures whichever
 * one ran the check, and a restart loses none:
 * - statement_check_differences{connection,livemode}: the differences of the newest day checked;
 * - statement_check_last_success_timestamp_seconds{connection,livemode}: when that check ended.
 * A database away keeps the last figures rather than failing the scrape.
 */
export function registerStatementCheckMetrics(registry: Registry, checks: StatementChecks, logger: Logger): void {
  let read: { at: number; newest: Promise<StatementCheckResult[]> } = { at: -Infinity, newest: Promise.resolve([]) };
  // Both gauges of a scrape share one read.
  const newestOfEach = async (): Promise<StatementCheckResult[]> => {
    if (Date.now() - read.at >= READ_EVERY_MS) {
      const last = read.newest;
      read = {
        at: Date.now(),
        newest: checks.newest(NEWEST).catch((err: unknown) => {
          logger.warn({ err }, 'statement checks not read for the metrics');
          return last;
        }),
      };
    }
    const first = new Map<string, StatementCheckResult>();
    for (const result of await read.newest) if (!first.has(result.connection)) first.set(result.connection, result);
    return [...first.values()];
  };
  new Gauge({
    name: 'statement_check_differences',
    help: "Differences between the PSP's listing and the statement on the newest day checked, by connection",
    labelNames: ['connection', 'livemode'] as const,
    registers: [registry],
    async collect() {
      for (const r of await newestOfEach()) {
        this.set({ connection: r.connection, livemode: String(r.livemode) }, r.differenceCount);
      }
    },
  });
  new Gauge({
    name: 'statement_check_last_success_timestamp_seconds',
    help: 'When the newest day checked against the PSP was checked, by connection (unix seconds)',
    labelNames: ['connection', 'livemode'] as const,
    registers: [registry],
    async collect() {
      for (const r of await newestOfEach()) {
        this.set({ connection: r.connection, livemode: String(r.livemode) }, Date.parse(r.checkedAt) / 1000);
      }
    },
  });
}
