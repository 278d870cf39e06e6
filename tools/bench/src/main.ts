import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, RUN_DIR } from '@pix/devstack';
import { baselineRef, prepareBaseline, removeBaseline } from './baseline';
import { measureFactSigning } from './fact-signing';
import { renderReport } from './report';
import { runVariant, type BenchOptions, type VariantResult } from './run-variant';
import { WebhookReceiver } from './webhooks';

/**
 * `make bench`: the working tree and a baseline commit, each on a stack of its own started the way
 * its own `make up` starts one, seeded step by step to each size and measured at each, one after the
 * other so that neither competes with the other for the machine. Numbers are reported, never
 * asserted: a shared 2-core machine is no place for timing thresholds.
 */
function numberEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not ${value}`);
  return n;
}

function benchOptions(): BenchOptions {
  // BENCH_QUICK: the same run at small sizes and short durations (about 2 minutes per checkout).
  const quick = process.env.BENCH_QUICK === '1';
  const sizes = (process.env.BENCH_SIZES ?? (quick ? '1000,5000' : '1000,100000')).split(',').map(Number);
  if (
    sizes.some((n) => !Number.isSafeInteger(n) || n <= 0) ||
    sizes.some((n, i) => i > 0 && n <= (sizes[i - 1] ?? 0))
  ) {
    throw new Error(`BENCH_SIZES must be ascending whole numbers, not ${process.env.BENCH_SIZES}`);
  }
  return {
    sizes,
    seconds: numberEnv('BENCH_SECONDS', quick ? 3 : 6),
    connections: numberEnv('BENCH_CONNECTIONS', 32),
    confirmations: numberEnv('BENCH_CONFIRMATIONS', quick ? 100 : 300),
    confirmationRate: numberEnv('BENCH_CONFIRMATION_RATE', 50),
    fixedRate: numberEnv('BENCH_FIXED_RATE', 50),
    fixedRateSeconds: numberEnv('BENCH_FIXED_SECONDS', quick ? 5 : 10),
    webhookWaitSeconds: numberEnv('BENCH_WEBHOOK_WAIT', quick ? 10 : 20),
    burst: numberEnv('BENCH_BURST', quick ? 5000 : 20_000),
    statementMovements: numberEnv('BENCH_STATEMENT', quick ? 10_000 : 100_000),
    idleSeconds: numberEnv('BENCH_IDLE_SECONDS', quick ? 10 : 30),
    // Quiet before the idle window: the last load's garbage collections and queued work (outbox
    // removals, webhooks) take seconds to end, and 3 to 5 s of it read as idle cost (issue 27).
    settleSeconds: quick ? 10 : 30,
    workDir: path.join(RUN_DIR, 'bench'),
    keepLogs: Boolean(process.env.KEEP_BENCH_LOGS),
  };
}

function describe(options: BenchOptions): string {
  return [
    `sizes ${options.sizes.map((n) => n.toLocaleString('en-US')).join(' and ')} payments across 100 stores`,
    `${options.connections} connections, ${options.seconds} s per throughput figure`,
    `creates at a fixed ${options.fixedRate}/s for ${options.fixedRateSeconds} s`,
    `${options.confirmations} confirmations at ${options.confirmationRate}/s (webhooks waited for ${options.webhookWaitSeconds} s)`,
    `a burst of ${options.burst.toLocaleString('en-US')} payments in one store at the largest size`,
    `a store with ${options.statementMovements.toLocaleString('en-US')} Pix received in a month at the largest size`,
    `idle ${options.idleSeconds} s`,
  ].join('; ');
}

function commitOf(root: string): string {
  const head = execFileSync('git', ['rev-parse', '--short=10', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' });
  return dirty.trim() ? `${head} + changes` : head;
}

async function main(): Promise<void> {
  const options = benchOptions();
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  const ref = baselineRef();
  const baseline = ref ? prepareBaseline(ref) : null;
  const receiver = await WebhookReceiver.start();
  const variants: VariantResult[] = [];
  try {
    if (baseline) {
      variants.push(
        await runVariant(
          'baseline',
          `baseline ${ref} (${baseline.commit.slice(0, 10)})`,
          baseline.dir,
          options,
          receiver,
        ),
      );
    }
    variants.push(await runVariant('current', `current (${commitOf(ROOT)})`, ROOT, options, receiver));
  } finally {
    await receiver.close();
    if (baseline) removeBaseline(baseline.dir);
  }
  const report = renderReport(variants, {
    startedAt,
    minutes: (Date.now() - startedAt.getTime()) / 60_000,
    settings: describe(options),
    loadBefore,
    loadAfter: os.loadavg(),
    facts: measureFactSigning(),
  });
  process.stdout.write(`\n${report}\n`);
  const resultsDir = path.join(ROOT, 'tools', 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${startedAt.toISOString().slice(0, 16).replace(/:/g, '')}.md`);
  fs.writeFileSync(file, report);
  process.stdout.write(`Saved ${path.relative(ROOT, file)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
