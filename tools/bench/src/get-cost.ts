/**
 * What one get costs, by process: a private stack, payments made through the API (each with its
 * view in the read model), then gets of them by id at 32 connections for a while, and around the
 * gets the CPU of each process (/proc). With PROFILE_DIR set, every service runs under
 * `--cpu-prof` and each one's profile of the gets is summarized, as create-cost does for creates.
 * `node tools/bench/dist/get-cost.js [seconds] [payments]`.
 */
import os from 'node:os';
import { withCostProbe } from './cost-probe';
import { runLoad, type Target } from './load';
import { createPaymentsThroughApi } from './seed';

const SECONDS = Number(process.argv[2] ?? 15);
const PAYMENTS = Number(process.argv[3] ?? 200);
const CONNECTIONS = 32;

async function main(): Promise<void> {
  // Processes that did next to nothing for the gets (the adapter, the dispatcher) are not profiled.
  await withCostProbe(
    'get-cost',
    'get',
    async ({ stack, store, startWindow }) => {
      const ids = await createPaymentsThroughApi(stack.gatewayUrl, store, PAYMENTS);
      const targets: Target[] = ids.map((id) => ({ path: `/public-api/v1/payments/${id}`, token: store.token }));
      const load = (seconds: number) =>
        runLoad({ baseUrl: stack.gatewayUrl, method: 'GET', targets, connections: CONNECTIONS, seconds });
      await load(3); // warm-up: the JIT, the auth cache, the pools
      const window = await startWindow();
      const result = await load(SECONDS);
      const cost = await window.end(result.ok);
      const out = [
        `${result.ok} gets (${result.failed} failed) in ${SECONDS} s at ${CONNECTIONS} connections: ` +
          `${result.perSecond.toFixed(0)}/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; load ${os.loadavg()[0]?.toFixed(2)}`,
        ...cost.lines,
      ];
      process.stdout.write(`${out.join('\n')}\n`);
    },
    0.05,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
