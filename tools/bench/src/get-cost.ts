/**
 * What one get costs, by process: a private stack, payments made through the API (each with its
 * view in the read model), then gets of them by id at 32 connections for a while, and around the
 * gets the CPU of each process (/proc). With PROFILE_DIR set, every service runs under
 * `--cpu-prof` and each one's profile of the gets is summarized, as create-cost does for creates.
 * `node tools/bench/dist/get-cost.js [seconds] [payments]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectAs, randomPorts, removeStackDir, startStack, stopProcesses } from '@pix/devstack';
import { formatSummary, monotonicUs, profileServices, summarizeDir } from './cpu-profile';
import { runLoad, type Target } from './load';
import { createStores } from './seed';
import { CpuMeter, platformSeconds } from './usage';

const SECONDS = Number(process.argv[2] ?? 15);
const PAYMENTS = Number(process.argv[3] ?? 200);
const CONNECTIONS = 32;

async function main(): Promise<void> {
  const profileDir = process.env.PROFILE_DIR;
  if (profileDir) profileServices(profileDir);
  let profiled: { fromUs: number; toUs: number; cpuMs: Map<string, number> } | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'get-cost-'));
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
    const targets: Target[] = [];
    for (let i = 0; i < PAYMENTS; i++) {
      const res = await fetch(`${stack.gatewayUrl}/public-api/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 25.5 }),
      });
      const { id } = (await res.json()) as { id: string };
      targets.push({ path: `/public-api/v1/payments/${id}`, token: store.token });
    }
    const load = (seconds: number) =>
      runLoad({ baseUrl: stack.gatewayUrl, method: 'GET', targets, connections: CONNECTIONS, seconds });
    await load(3); // warm-up: the JIT, the auth cache, the pools
    const cpu = new CpuMeter(stack.processes);
    const fromUs = monotonicUs();
    const result = await load(SECONDS);
    const usage = cpu.read();
    profiled = {
      fromUs,
      toUs: monotonicUs(),
      cpuMs: new Map(usage.map((u) => [u.name, (u.seconds * 1000) / result.ok])),
    };
    const out = [
      `${result.ok} gets (${result.failed} failed) in ${SECONDS} s at ${CONNECTIONS} connections: ` +
        `${result.perSecond.toFixed(0)}/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; load ${os.loadavg()[0]?.toFixed(2)}`,
      ...usage.map((u) => `cpu ${u.name.padEnd(22)} ${((u.seconds * 1000) / result.ok).toFixed(3)} ms/get`),
      `cpu ${'platform'.padEnd(22)} ${((platformSeconds(usage) * 1000) / result.ok).toFixed(3)} ms/get (the PSP simulators apart)`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    await nc.close();
  } finally {
    await stopProcesses(stack.processes);
    if (!process.env.KEEP) removeStackDir(dir);
  }
  if (profileDir && profiled) {
    const { cpuMs } = profiled;
    const lines = summarizeDir(profileDir, profiled)
      .filter((s) => (cpuMs.get(s.process) ?? 0) >= 0.05)
      .flatMap((s) => formatSummary(s, cpuMs.get(s.process) ?? 0, 'get'));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
