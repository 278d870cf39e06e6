/**
 * What one create costs, by process and by kind: a private stack, a fixed number of creates at a
 * fixed rate (open loop, over HTTP), and around them CPU seconds per process (/proc), database
 * commands per service, command and collection (db_commands_total), and, with PG_STAT_STATEMENTS=1,
 * the SQL PostgreSQL ran and the rows each table took (inserts, updates, deletes, and so index
 * entries). `node tools/bench/dist/create-cost.js [creates] [rate]`. With PROFILE_DIR set, every
 * service runs under `--cpu-prof` and each one's profile of the measured creates is summarized.
 */
import os from 'node:os';
import { MongoClient } from 'mongodb';
import { Client } from 'pg';
import { withCostProbe } from './cost-probe';
import { commandLines, commandSamples } from './db-commands';
import { openStatements, topStatements } from './pg-statements';
import { paceRequests } from './pace';

const CREATES = Number(process.argv[2] ?? 1500);
const RATE = Number(process.argv[3] ?? 50);
const WARMUP = Number(process.env.WARMUP ?? 300);
const BODY = JSON.stringify({
  amount: 25.5,
  email: 'bench@example.com',
  observation: 'bench',
  ...(process.env.WEBHOOK_URL ? { webhookUrl: process.env.WEBHOOK_URL } : {}),
});

/** Creates sent at a fixed rate whatever the answers: how many were answered 2xx. */
async function creates(baseUrl: string, token: string, count: number, rate: number): Promise<number> {
  const keys = Array.from({ length: count }, (_, i) => String(i));
  const paced = await paceRequests(keys, rate, async () => {
    const res = await fetch(`${baseUrl}/public-api/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: BODY,
    });
    await res.arrayBuffer();
    return res.ok;
  });
  return count - (await paced.refused);
}

/** db_commands_total by service and labels: what the stack must export for this measure. */
async function commands(opsUrls: Record<string, string>): Promise<Map<string, number>> {
  const samples = await commandSamples(opsUrls);
  if (!samples) throw new Error('a service did not export db_commands_total');
  return samples;
}

async function tableRows(pg: Client): Promise<Map<string, { ins: number; upd: number; hot: number; del: number }>> {
  const { rows } = await pg.query<{ relname: string; ins: string; upd: string; hot: string; del: string }>(
    `SELECT coalesce(t.relname, 'toast of ' || c.relname) AS relname, s.n_tup_ins AS ins, s.n_tup_upd AS upd,
            s.n_tup_hot_upd AS hot, s.n_tup_del AS del
       FROM pg_class c JOIN pg_stat_all_tables s ON s.relid IN (c.oid, c.reltoastrelid)
       LEFT JOIN pg_class t ON t.oid = s.relid AND t.oid = c.oid
      WHERE c.relnamespace = 'documentdb_data'::regnamespace AND c.relkind = 'r'`,
  );
  return new Map(rows.map((r) => [r.relname, { ins: +r.ins, upd: +r.upd, hot: +r.hot, del: +r.del }]));
}

async function main(): Promise<void> {
  await withCostProbe('create-cost', 'create', async ({ stack, store, startWindow }) => {
    let pg: Client | undefined;
    try {
      await creates(stack.gatewayUrl, store.token, WARMUP, RATE);
      // PREFILL=n: n more payments like the last one created (each its own ids and keys), as history.
      const prefill = Number(process.env.PREFILL ?? 0);
      if (prefill > 0 && stack.mongoAdminUrl) {
        const mc = new MongoClient(stack.mongoAdminUrl);
        try {
          const payments = mc.db().collection<Record<string, unknown>>('payments');
          const model = await payments.findOne({}, { sort: { createdAt: -1 } });
          if (!model) throw new Error('no payment to copy');
          for (let i = 0; i < prefill; i += 1000) {
            await payments.insertMany(
              Array.from({ length: Math.min(1000, prefill - i) }, (_, j) => {
                const n = `${i + j}`.padStart(9, '0');
                return {
                  ...model,
                  _id: `prefill-${n}`,
                  txid: `PREFILL${n}`.padEnd(26, '0'),
                  listKey: `${String(model.listKey)}~${n}`,
                  statusKey: `${String(model.statusKey)}~${n}`,
                  outbox: [],
                };
              }) as never[],
            );
          }
        } finally {
          await mc.close();
        }
      }
      await new Promise((r) => setTimeout(r, 2000));
      pg = await openStatements(stack.postgresUrl);
      const rowsBefore = pg ? await tableRows(pg) : null;
      const cmdBefore = await commands(stack.opsUrls);
      const window = await startWindow();
      const t0 = performance.now();
      const ok = await creates(stack.gatewayUrl, store.token, CREATES, RATE);
      // What the creates set going (outbox clearing, webhooks) ends within a couple of seconds.
      await new Promise((r) => setTimeout(r, 2000));
      const cost = await window.end(ok);
      const seconds = (performance.now() - t0) / 1000;
      const cmdAfter = await commands(stack.opsUrls);
      const out: string[] = [];
      out.push(
        `${ok} of ${CREATES} creates ok at ${RATE}/s over ${seconds.toFixed(1)} s; load ${os.loadavg()[0]?.toFixed(2)}`,
      );
      out.push(...cost.lines);
      out.push(...commandLines(cmdBefore, cmdAfter, ok));
      if (pg && rowsBefore) {
        const after = await tableRows(pg);
        const names = await pg.query<{ table_name: string; collection_name: string; indexes: string }>(
          `SELECT 'documents_' || c.collection_id AS table_name, c.collection_name,
                    (SELECT count(*) FROM pg_indexes i WHERE i.schemaname = 'documentdb_data'
                       AND i.tablename = 'documents_' || c.collection_id) AS indexes
               FROM documentdb_api_catalog.collections c`,
        );
        for (const n of [
          ...names.rows,
          ...names.rows.map((r) => ({
            ...r,
            table_name: `toast of ${r.table_name}`,
            collection_name: `(toast) ${r.collection_name}`,
            indexes: '1',
          })),
        ]) {
          const a = after.get(n.table_name);
          const b = rowsBefore.get(n.table_name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
          if (!a) continue;
          const ins = (a.ins - b.ins) / ok;
          const upd = (a.upd - b.upd) / ok;
          const hot = (a.hot - b.hot) / ok;
          const del = (a.del - b.del) / ok;
          if (ins + upd + del === 0) continue;
          const entries = (ins + upd - hot) * Number(n.indexes);
          out.push(
            `rows ${n.collection_name.padEnd(28)} ins ${ins.toFixed(2)} upd ${upd.toFixed(2)} (hot ${hot.toFixed(2)}) del ${del.toFixed(2)}; ${n.indexes} indexes: ~${entries.toFixed(2)} index entries`,
          );
        }
        const retry = await pg.query<{ relname: string; ins: string; del: string }>(
          `SELECT relname, n_tup_ins AS ins, n_tup_del AS del FROM pg_stat_all_tables
              WHERE schemaname = 'documentdb_data' AND relname LIKE 'retry%' AND n_tup_ins > 0`,
        );
        for (const r of retry.rows)
          out.push(`retry table ${r.relname}: ${r.ins} rows inserted, ${r.del} deleted (since start)`);
        const rows = await topStatements(pg, 'calls', 40);
        for (const r of rows) {
          out.push(`sql ${r.toplevel ? 'top' : 'sub'} ${(r.calls / ok).toFixed(2)}/create ${r.ms} ms  ${r.query}`);
        }
      }
      process.stdout.write(`${out.join('\n')}\n`);
    } finally {
      await pg?.end();
    }
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
