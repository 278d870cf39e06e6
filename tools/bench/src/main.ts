import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { StoreCreateReplySchema, Subjects } from '@pix/contracts';
import {
  natsClusterSize,
  randomPorts,
  removeStackDir,
  ROOT,
  RUN_DIR,
  startStack,
  stopProcesses,
  type StackInfo,
} from '@pix/devstack';
import { callRpc } from '@pix/messaging';
import { baselineRef, prepareBaseline } from './baseline';
import { runLoad, type LoadResult } from './load';
import { peakRssMiB } from './memory';

/**
 * `make bench`: the working tree and a baseline commit, built side by side and loaded in the same
 * run, in alternating order, so that the machine's noise hits both alike. Numbers are reported,
 * never asserted: a shared 2-core machine is no place for timing thresholds.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** Creates per run and payments seeded before measuring: both sides then hold the same data. */
const CREATES = Number(process.env.BENCH_CREATES ?? 300);

interface Variant {
  name: 'baseline' | 'current';
  label: string;
  root: string;
  stack?: StackInfo;
  token?: string;
  paymentId?: string;
}

interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: (variant: Variant) => string;
  body?: string;
  /** Writes run a fixed number of requests, so the two databases grow alike. */
  requests?: number;
}

const createBody = JSON.stringify({ amount: 25.5, email: 'bench@example.com', observation: 'bench' });

// Reads first, on data of equal size on both sides; the create run then grows both by the same count.
const scenarios: Scenario[] = [
  { name: 'get payment', method: 'GET', path: (v) => `/public-api/v1/payments/${v.paymentId ?? ''}` },
  { name: 'list payments (limit 50)', method: 'GET', path: () => '/public-api/v1/payments?limit=50' },
  {
    name: 'create payment',
    method: 'POST',
    path: () => '/public-api/v1/payments',
    body: createBody,
    requests: CREATES,
  },
];

async function prepare(variant: Variant): Promise<void> {
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'bench', `${variant.name}-`));
  variant.stack = await startStack({
    dir,
    // NATS_CLUSTER=3 measures both variants on a 3-member JetStream cluster.
    ports: await randomPorts(natsClusterSize()),
    detached: false,
    root: variant.root,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_REQUESTS: '100000000' },
  });
  const nc = await connect({ servers: variant.stack.natsUrl.split(',') });
  const store = await callRpc(nc, Subjects.adminStoresCreate, { name: 'bench' }, StoreCreateReplySchema, 30_000);
  await nc.close();
  variant.token = store.token;
  const created = await fetch(`${variant.stack.gatewayUrl}/public-api/v1/payments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${store.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 10 }),
  });
  variant.paymentId = ((await created.json()) as { id: string }).id;
  await runLoad({
    url: `${variant.stack.gatewayUrl}/public-api/v1/payments`,
    method: 'POST',
    token: store.token,
    body: createBody,
    connections: CONNECTIONS,
    requests: CREATES,
    durationSeconds: SECONDS,
  });
}

function better(a: LoadResult | undefined, b: LoadResult): LoadResult {
  return !a || b.requestsPerSecond > a.requestsPerSecond ? b : a;
}

function pct(base: number, current: number): string {
  if (base === 0) return 'n/a';
  const delta = ((current - base) / base) * 100;
  return `${delta >= 0 ? '+' : ''}${delta.toFixed(1)}%`;
}

async function main(): Promise<void> {
  fs.mkdirSync(path.join(RUN_DIR, 'bench'), { recursive: true });
  const ref = baselineRef();
  process.stdout.write(`Building baseline ${ref} ...\n`);
  const baseline = prepareBaseline(ref);
  const variants: Variant[] = [
    { name: 'baseline', label: `${ref} (${baseline.commit.slice(0, 10)})`, root: baseline.dir },
    { name: 'current', label: 'working tree', root: ROOT },
  ];
  try {
    for (const variant of variants) await prepare(variant);
    const best = new Map<string, LoadResult>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        // Alternate who goes first so that warm-up and drift do not favour one side.
        const order = round % 2 === 0 ? variants : [...variants].reverse();
        for (const variant of order) {
          const result = await runLoad({
            url: `${variant.stack?.gatewayUrl}${scenario.path(variant)}`,
            method: scenario.method,
            token: variant.token ?? '',
            body: scenario.body,
            connections: CONNECTIONS,
            requests: scenario.requests,
            durationSeconds: SECONDS,
          });
          const key = `${scenario.name}|${variant.name}`;
          best.set(key, better(best.get(key), result));
          process.stdout.write(
            `round ${round + 1} ${scenario.name.padEnd(26)} ${variant.name.padEnd(9)} ${result.requestsPerSecond.toFixed(0)} req/s\n`,
          );
        }
      }
    }
    const lines = [
      '',
      `Baseline: ${variants[0]?.label}   Current: working tree   ${CONNECTIONS} connections, reads ${SECONDS}s and creates ${CREATES} per run, best of ${ROUNDS}`,
      '',
      '| scenario | baseline req/s | current req/s | change | baseline p50/p99 ms | current p50/p99 ms | non-2xx (b/c) |',
      '|---|---:|---:|---:|---:|---:|---:|',
    ];
    const report: Record<string, unknown> = { baseline: variants[0]?.label, scenarios: {}, memory: {} };
    for (const scenario of scenarios) {
      const b = best.get(`${scenario.name}|baseline`);
      const c = best.get(`${scenario.name}|current`);
      if (!b || !c) continue;
      (report.scenarios as Record<string, unknown>)[scenario.name] = { baseline: b, current: c };
      lines.push(
        `| ${scenario.name} | ${b.requestsPerSecond.toFixed(0)} | ${c.requestsPerSecond.toFixed(0)} | ${pct(b.requestsPerSecond, c.requestsPerSecond)} | ${b.latencyP50Ms}/${b.latencyP99Ms} | ${c.latencyP50Ms}/${c.latencyP99Ms} | ${b.non2xx + b.errors}/${c.non2xx + c.errors} |`,
      );
    }
    lines.push('', '| process | baseline peak RSS MiB | current peak RSS MiB | change |', '|---|---:|---:|---:|');
    for (const proc of variants[1]?.stack?.processes ?? []) {
      const b = variants[0]?.stack?.processes.find((p) => p.name === proc.name);
      const bm = b ? peakRssMiB(b.pid) : null;
      const cm = peakRssMiB(proc.pid);
      if (bm === null || cm === null) continue;
      (report.memory as Record<string, unknown>)[proc.name] = { baseline: bm, current: cm };
      lines.push(`| ${proc.name} | ${bm.toFixed(1)} | ${cm.toFixed(1)} | ${pct(bm, cm)} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    const resultsDir = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const file = path.join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(report, null, 2));
    process.stdout.write(`\nSaved ${path.relative(ROOT, file)}\n`);
  } finally {
    for (const variant of variants) {
      if (variant.stack) {
        await stopProcesses(variant.stack.processes);
        if (!process.env.KEEP_BENCH_LOGS) removeStackDir(variant.stack.dir);
      }
    }
    execFileSync('git', ['worktree', 'remove', '--force', baseline.dir], { cwd: ROOT, stdio: 'ignore' });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
