import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { procStat, processTree } from '@pix/devstack';

/**
 * CPU time, wakeups and peak memory of a stack's processes, from /proc. A process counts with
 * everything it started (PostgreSQL serves each connection from a child of the postmaster), so each
 * figure is per stack process, children included.
 */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** A number field of a /proc status file (`VmHWM` in kB, `voluntary_ctxt_switches`); null when gone. */
function statusField(file: string, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(fs.readFileSync(file, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null; // gone meanwhile
  }
}

/**
 * CPU seconds used so far by processes (a process and its descendants). A child that exits between
 * two readings moves its time into its parent's cutime/cstime, so differences of this sum stay exact.
 */
function secondsOf(tree: readonly number[]): number {
  let ticks = 0;
  for (const pid of tree) ticks += procStat(pid)?.ticks ?? 0;
  return ticks / TICKS_PER_SECOND;
}

/**
 * Times the threads of processes alive now have gone to sleep waiting and been woken again
 * (voluntary context switches): on this VM each costs 0.1-0.2 ms of CPU, so a load at a fixed rate,
 * where every message wakes its process, pays far more per request than a saturated one. Unlike CPU
 * time, a child's count leaves with it: PostgreSQL's short-lived backends are not in it.
 */
function wakeupsOf(tree: readonly number[]): number {
  let count = 0;
  for (const pid of tree) {
    let threads: string[] = [];
    try {
      threads = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone meanwhile
    }
    for (const tid of threads) count += statusField(`/proc/${pid}/task/${tid}/status`, 'voluntary_ctxt_switches') ?? 0;
  }
  return count;
}

/** Peak resident memory (VmHWM) of the largest process in the tree, in MiB; null when unreadable. */
export function peakRssMiB(root: number): number | null {
  let peak: number | null = null;
  for (const pid of processTree(root)) {
    const kib = statusField(`/proc/${pid}/status`, 'VmHWM');
    if (kib !== null) peak = Math.max(peak ?? 0, kib / 1024);
  }
  return peak;
}

/**
 * Whether a stack process is the platform's: the PSP simulators (test mode's and the live stand-in)
 * and their own database server (psp-simulator-postgres, -ferretdb) do a PSP's work, which issue 41
 * leaves out of every CPU figure, so totals sum the others only.
 */
export function isPlatformProcess(name: string): boolean {
  return !name.startsWith('psp-simulator');
}

/** The platform's CPU seconds in a reading of CpuMeter: every process but the PSP's. */
export function platformSeconds(usage: readonly { name: string; seconds: number }[]): number {
  return usage.reduce((sum, u) => (isPlatformProcess(u.name) ? sum + u.seconds : sum), 0);
}

/** CPU used by each named process over a span of time: seconds of CPU, % of one core, and wakeups. */
export class CpuMeter {
  private readonly start: Map<string, { seconds: number; wakeups: number }>;
  private readonly startedAt = performance.now();

  constructor(private readonly processes: readonly { name: string; pid: number }[]) {
    this.start = new Map(processes.map((p) => [p.name, CpuMeter.sample(p.pid)]));
  }

  /** One look at /proc for the process's tree, read for both figures. */
  private static sample(root: number): { seconds: number; wakeups: number } {
    const tree = processTree(root);
    return { seconds: secondsOf(tree), wakeups: wakeupsOf(tree) };
  }

  read(): { name: string; seconds: number; percent: number; wakeups: number }[] {
    const elapsed = (performance.now() - this.startedAt) / 1000;
    return this.processes.map((p) => {
      const start = this.start.get(p.name) ?? { seconds: 0, wakeups: 0 };
      const now = CpuMeter.sample(p.pid);
      const seconds = now.seconds - start.seconds;
      return { name: p.name, seconds, percent: (seconds / elapsed) * 100, wakeups: now.wakeups - start.wakeups };
    });
  }
}
