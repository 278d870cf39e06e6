/**
 * What one confirmation costs, by process: a private stack, payments with a webhookUrl created
 * first (their payment.created webhooks waited for), then each paid at the sandbox PSP at a fixed
 * rate (open loop, as `admin sandbox pay` does), and around the pays CPU seconds per process
 * (/proc), database commands per service, command and collection (db_commands_total), and from
 * each pay sent to its payment.status_changed webhook. `node tools/bench/dist/pay-cost.js [pays]
 * [rate]`. With PROFILE_DIR set, every service runs under `--cpu-prof` and each one's profile of the
 * measured pays is summarized. The bench's create-cost, for the payer's side of a payment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectAs, randomPorts, removeStackDir, startStack, stopProcesses } from '@pix/devstack';
import { confirmAtFixedRate, createWebhookPayments } from './confirmations';
import { formatSummary, monotonicUs, profileServices, summarizeDir } from './cpu-profile';
import { commandSamples } from './db-commands';
import { createStores } from './seed';
import { CpuMeter, platformSeconds } from './usage';
import { WebhookReceiver } from './webhooks';

const PAYS = Number(process.argv[2] ?? 600);
const RATE = Number(process.argv[3] ?? 25);
/** How long the pays' webhooks are waited for after the last pay, and the creates before them. */
const WAIT_SECONDS = 60;

async function main(): Promise<void> {
  const profileDir = process.env.PROFILE_DIR;
  if (profileDir) profileServices(profileDir);
  let profiled: { fromUs: number; toUs: number; cpuMs: Map<string, number> } | undefined;
  const receiver = await WebhookReceiver.start();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pay-cost-'));
  const stack = await startStack({
    dir,
    ports: await randomPorts(1),
    detached: false,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_REQUESTS: '1000000000' },
  });
  try {
    const nc = await connectAs(stack.natsUrl, 'admin', stack.natsCredentials);
    const [store] = await createStores(nc, 1);
    if (!store) throw new Error('no store');
    const ids = await createWebhookPayments(stack.gatewayUrl, store, receiver, PAYS, WAIT_SECONDS);
    await new Promise((r) => setTimeout(r, 2000));
    // The simulator's commands too: they run on the platform's database server, whose CPU is counted.
    const opsUrls = { ...stack.opsUrls, ...(stack.psp && { 'psp-simulator': stack.psp.opsUrl }) };
    const cmdBefore = await commandSamples(opsUrls);
    const cpu = new CpuMeter(stack.processes);
    const fromUs = monotonicUs();
    const latency = await confirmAtFixedRate(nc, receiver, ids, RATE, WAIT_SECONDS);
    // What the last pays set going (the webhooks' bookkeeping) ends within a couple of seconds.
    await new Promise((r) => setTimeout(r, 2000));
    const usage = cpu.read();
    const paid = latency.received;
    if (paid === 0) throw new Error('no payment.status_changed webhook arrived');
    profiled = { fromUs, toUs: monotonicUs(), cpuMs: new Map(usage.map((u) => [u.name, (u.seconds * 1000) / paid])) };
    const cmdAfter = await commandSamples(opsUrls);
    const out = [
      `${ids.length} pays at ${latency.ratePerSecond.toFixed(1)}/s, ${latency.refused} refused, ${paid} webhooks; ` +
        `pay → webhook p50 ${latency.p50Ms?.toFixed(0)} ms, p99 ${latency.p99Ms?.toFixed(0)} ms; load ${os.loadavg()[0]?.toFixed(2)}`,
    ];
    for (const u of usage) out.push(`cpu ${u.name.padEnd(22)} ${((u.seconds * 1000) / paid).toFixed(3)} ms/pay`);
    out.push(
      `cpu ${'platform'.padEnd(22)} ${((platformSeconds(usage) * 1000) / paid).toFixed(3)} ms/pay (the PSP simulators apart)`,
    );
    for (const [key, after] of [...(cmdAfter ?? [])].sort()) {
      const d = after - (cmdBefore?.get(key) ?? 0);
      if (d > 0) out.push(`cmd ${key} ${(d / paid).toFixed(3)}`);
    }
    process.stdout.write(`${out.join('\n')}\n`);
    await nc.close();
  } finally {
    await stopProcesses(stack.processes);
    await receiver.close();
    if (!process.env.KEEP) removeStackDir(dir);
  }
  if (profileDir && profiled) {
    const { cpuMs } = profiled;
    const lines = summarizeDir(profileDir, profiled).flatMap((s) => formatSummary(s, cpuMs.get(s.process) ?? 0, 'pay'));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
