/**
 * What create-cost, get-cost and pay-cost share: a private stack of their own (random ports), the
 * operator's connection and one store on it, a measured window with the CPU of each process per
 * unit of work (/proc), and with PROFILE_DIR every process under `--cpu-prof`, its profile of the
 * window summarized once the stack has stopped (a profile is written as its process exits).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectAs, randomPorts, removeStackDir, startStack, stopProcesses } from '@pix/devstack';
import { formatSummary, monotonicUs, profileServices, summarizeDir } from './cpu-profile';
import { createStores, type BenchStore } from './seed';
import { CpuMeter, platformSeconds } from './usage';

type Stack = Awaited<ReturnType<typeof startStack>>;

/** A measured window, ended: each process's CPU per unit, and those figures as lines of text. */
export interface WindowCost {
  usage: { name: string; seconds: number }[];
  lines: string[];
}

export interface CostProbe {
  stack: Stack;
  nc: NatsConnection;
  store: BenchStore;
  /** Starts measuring the CPU of every process; `end` divides it by the units of work done. */
  startWindow(): { end(units: number): WindowCost };
}

/**
 * Runs `measure` on a private stack named `name` (its directory's prefix), the unit of its work
 * called `unit` in what is printed; the stack is stopped and removed after (KEEP=1 keeps its
 * directory). Profiles of processes under `minProfiledMs` a unit are not printed.
 */
export async function withCostProbe(
  name: string,
  unit: string,
  measure: (probe: CostProbe) => Promise<void>,
  minProfiledMs = 0,
): Promise<void> {
  const profileDir = process.env.PROFILE_DIR;
  if (profileDir) profileServices(profileDir);
  let profiled: { fromUs: number; toUs: number; cpuMs: Map<string, number> } | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
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
    const startWindow = () => {
      const cpu = new CpuMeter(stack.processes);
      const fromUs = monotonicUs();
      return {
        end(units: number): WindowCost {
          const usage = cpu.read();
          const perUnit = (seconds: number) => (seconds * 1000) / units;
          profiled = { fromUs, toUs: monotonicUs(), cpuMs: new Map(usage.map((u) => [u.name, perUnit(u.seconds)])) };
          const total = usage.reduce((sum, u) => sum + u.seconds, 0);
          const line = (label: string, seconds: number, note = '') =>
            `cpu ${label.padEnd(22)} ${perUnit(seconds).toFixed(3)} ms/${unit}${note}`;
          return {
            usage,
            lines: [
              ...usage.map((u) => line(u.name, u.seconds)),
              line('total', total),
              line('platform', platformSeconds(usage), ' (the PSP simulators apart)'),
            ],
          };
        },
      };
    };
    await measure({ stack, nc, store, startWindow });
    await nc.close();
  } finally {
    await stopProcesses(stack.processes);
    if (!process.env.KEEP) removeStackDir(dir);
  }
  if (profileDir && profiled) {
    const { cpuMs } = profiled;
    const lines = summarizeDir(profileDir, profiled)
      .filter((s) => (cpuMs.get(s.process) ?? 0) >= minProfiledMs)
      .flatMap((s) => formatSummary(s, cpuMs.get(s.process) ?? 0, unit));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
