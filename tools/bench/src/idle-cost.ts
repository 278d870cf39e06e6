/**
 * What a stack costs while nobody uses it, by process: a private stack, some payments made through
 * the API first (the periodic work that follows payments: expiries scheduled, the statement check's
 * windows), a quiet spell for that work to end, then a window with nothing asked, and in it the CPU
 * of each process (/proc) as % of one core, the database commands each service sent, and, with
 * PG_STAT_STATEMENTS=1, the SQL PostgreSQL ran. With PROFILE_DIR set, every process's profile of
 * the window is summarized, as create-cost does for creates.
 * `node tools/bench/dist/idle-cost.js [seconds] [payments]` (60 s after 200 payments by default).
 */
import os from 'node:os';
import { withCostProbe } from './cost-probe';
import { commandLines, commandSamples } from './db-commands';
import { openStatements, topStatements } from './pg-statements';
import { createPaymentsThroughApi } from './seed';

const SECONDS = Number(process.argv[2] ?? 60);
const PAYMENTS = Number(process.argv[3] ?? 200);
/** As the bench's quiet before its idle window: the payments' own work (outbox, views) ends in it. */
const QUIET_SECONDS = 20;

async function main(): Promise<void> {
  // The window's unit is a second of it: ms of CPU per second ÷ 10 is % of one core.
  await withCostProbe('idle-cost', 'second', async ({ stack, store, startWindow }) => {
    await createPaymentsThroughApi(stack.gatewayUrl, store, PAYMENTS);
    await new Promise((resolve) => setTimeout(resolve, QUIET_SECONDS * 1000));
    const pg = await openStatements(stack.postgresUrl);
    try {
      const before = await commandSamples(stack.opsUrls);
      const window = await startWindow();
      await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
      const cost = await window.end(SECONDS);
      const after = await commandSamples(stack.opsUrls);
      const out = [
        `idle ${SECONDS} s after ${PAYMENTS} payments; load ${os.loadavg()[0]?.toFixed(2)}`,
        ...cost.lines,
        ...commandLines(before, after, SECONDS, '/s'),
      ];
      for (const r of pg ? await topStatements(pg, 'time', 25) : []) {
        out.push(`sql ${(r.calls / SECONDS).toFixed(2)}/s ${r.ms} ms  ${r.query}`);
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
