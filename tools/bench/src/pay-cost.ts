/**
 * What one confirmation costs, by process: a private stack, payments with a webhookUrl created
 * first (their payment.created webhooks waited for), then each paid at the sandbox PSP at a fixed
 * rate (open loop, as `admin sandbox pay` does), and around the pays CPU seconds per process
 * (/proc), database commands per service, command and collection (db_commands_total), and from
 * each pay sent to its payment.status_changed webhook. `node tools/bench/dist/pay-cost.js [pays]
 * [rate]`. With PROFILE_DIR set, every service runs under `--cpu-prof` and each one's profile of the
 * measured pays is summarized. The bench's create-cost, for the payer's side of a payment.
 */
import os from 'node:os';
import { confirmAtFixedRate, createWebhookPayments } from './confirmations';
import { withCostProbe } from './cost-probe';
import { commandLines, commandSamples } from './db-commands';
import { WebhookReceiver } from './webhooks';

const PAYS = Number(process.argv[2] ?? 600);
const RATE = Number(process.argv[3] ?? 25);
/** How long the pays' webhooks are waited for after the last pay, and the creates before them. */
const WAIT_SECONDS = 60;

async function main(): Promise<void> {
  const receiver = await WebhookReceiver.start();
  try {
    await withCostProbe('pay-cost', 'pay', async ({ stack, nc, store, startWindow }) => {
      const ids = await createWebhookPayments(stack.gatewayUrl, store, receiver, PAYS, WAIT_SECONDS);
      await new Promise((r) => setTimeout(r, 2000));
      // The simulator's commands too: they run on the platform's database server, whose CPU is counted.
      const opsUrls = { ...stack.opsUrls, ...(stack.psp && { 'psp-simulator': stack.psp.opsUrl }) };
      const cmdBefore = await commandSamples(opsUrls);
      const window = await startWindow();
      const latency = await confirmAtFixedRate(nc, receiver, ids, RATE, WAIT_SECONDS);
      // What the last pays set going (the webhooks' bookkeeping) ends within a couple of seconds.
      await new Promise((r) => setTimeout(r, 2000));
      const paid = latency.received;
      if (paid === 0) throw new Error('no payment.status_changed webhook arrived');
      const cost = await window.end(paid);
      const cmdAfter = await commandSamples(opsUrls);
      const out = [
        `${ids.length} pays at ${latency.ratePerSecond.toFixed(1)}/s, ${latency.refused} refused, ${paid} webhooks; ` +
          `pay → webhook p50 ${latency.p50Ms?.toFixed(0)} ms, p99 ${latency.p99Ms?.toFixed(0)} ms; load ${os.loadavg()[0]?.toFixed(2)}`,
        ...cost.lines,
        ...commandLines(cmdBefore, cmdAfter, paid),
      ];
      process.stdout.write(`${out.join('\n')}\n`);
    });
  } finally {
    await receiver.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
