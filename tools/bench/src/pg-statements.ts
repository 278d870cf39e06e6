import { Client } from 'pg';

/** One statement PostgreSQL ran, as pg_stat_statements sums it since the reset. */
export interface StatementRow {
  toplevel: boolean;
  calls: number;
  ms: string;
  query: string;
}

/**
 * The stack's PostgreSQL connection for the cost tools when PG_STAT_STATEMENTS=1: pg_stat_statements
 * loaded and reset as it opens, so what is read after covers the measured window. Undefined without
 * the variable (or without a PostgreSQL of the stack's own).
 */
export async function openStatements(postgresUrl: string | undefined): Promise<Client | undefined> {
  if (process.env.PG_STAT_STATEMENTS !== '1' || !postgresUrl) return undefined;
  const pg = new Client({ connectionString: postgresUrl });
  await pg.connect();
  await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await pg.query('SELECT pg_stat_statements_reset()');
  return pg;
}

/** The statements run since the reset, the first `limit` by calls or by time, each on one line of at most 160 characters. */
export async function topStatements(pg: Client, by: 'calls' | 'time', limit: number): Promise<StatementRow[]> {
  const order = by === 'calls' ? 'calls' : 'total_exec_time';
  const { rows } = await pg.query<{ toplevel: boolean; calls: string; ms: string; query: string }>(
    `SELECT toplevel, calls, round(total_exec_time::numeric, 1) AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
       FROM pg_stat_statements ORDER BY ${order} DESC LIMIT ${Number(limit)}`,
  );
  return rows.map((r) => ({ ...r, calls: Number(r.calls) }));
}
