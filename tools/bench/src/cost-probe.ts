/**
 * What create-cost, get-cost, pay-cost and idle-cost share: a private stack of their own (random
 * ports), the operator's connection and one store on it, a measured window with the CPU and the
 * wakeups of each process per unit of work (/proc) and the NATS server's messages per unit (its
 * /varz), and with PROFILE_DIR every process under `--cpu-prof`, its profile of the window
 * summarized once the stack has stopped (a profile is written as its process exits).
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

/** Messages the NATS server has taken in from and sent out to its clients since it started. */
async function natsMessages(monitorPort: number | undefined): Promise<{ in: number; out: number }> {
  if (monitorPort === undefined) throw new Error('the NATS server of the probe has no monitoring port');
  const varz = (await (await fetch(`http://127.0.0.1:${monitorPort}/varz`)).json()) as {
    in_msgs: number;
    out_msgs: number;
  };
  return { in: varz.in_msgs, out: varz.out_msgs };
}

/** A measured window, ended: each process's CPU (and wakeups) per unit, and those figures as lines of text. */
export interface WindowCost {
  usage: { name: string; seconds: number; wakeups: number }[];
  lines: string[];
}

export interface CostProbe {
  stack: Stack;
  nc: NatsConnection;
  store: BenchStore;
  /**
   * Starts measuring the CPU and wakeups of every process and the messages the NATS server took in
   * and sent out; `end` divides them by the units of work done.
   */
  startWindow(): Promise<{ end(units: number): Promise<WindowCost> }>;
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
  const ports = await randomPorts(1);
  const stack = await startStack({
    dir,
    ports,
    detached: false,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_REQUESTS: '1000000000' },
  });
  try {
    const nc = await connectAs(stack.natsUrl, 'admin', stack.natsCredentials);
    const [store] = await createStores(nc, 1);
    if (!store) throw new Error('no store');
    const startWindow = async () => {
      const messagesBefore = await natsMessages(ports.natsMonitor);
      const cpu = new CpuMeter(stack.processes);
      const fromUs = monotonicUs();
      return {
        async end(units: number): Promise<WindowCost> {
          const usage = cpu.read();
          const messages = await natsMessages(ports.natsMonitor);
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
              `wakeups per ${unit} (threads' voluntary context switches): ` +
                usage.map((u) => `${u.name} ${(u.wakeups / units).toFixed(1)}`).join(', '),
              `nats messages in ${((messages.in - messagesBefore.in) / units).toFixed(2)}, ` +
                `out ${((messages.out - messagesBefore.out) / units).toFixed(2)} per ${unit} ` +
                '(every account, JetStream API and acknowledgements included)',
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
