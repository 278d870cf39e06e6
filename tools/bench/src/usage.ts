import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * CPU time and peak memory of a stack's processes, from /proc. A process counts with everything it
 * started (PostgreSQL serves each connection from a child of the postmaster), so each figure is
 * per stack process, children included.
 */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

interface Stat {
  ppid: number;
  /** utime + stime + cutime + cstime: its own CPU and that of its children already reaped. */
  ticks: number;
}

function readStat(pid: number): Stat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses; the fields after its last ')' are fixed.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const n = (i: number) => Number(fields[i]);
    return { ppid: n(1), ticks: n(11) + n(12) + n(13) + n(14) };
  } catch {
    return null; // gone meanwhile
  }
}

/** The process and all its descendants alive now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (!stat) continue;
    const siblings = children.get(stat.ppid) ?? [];
    siblings.push(Number(entry));
    children.set(stat.ppid, siblings);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * CPU seconds used so far by a process and its descendants. A child that exits between two readings
 * moves its time into its parent's cutime/cstime, so differences of this sum stay exact.
 */
export function cpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) ticks += readStat(pid)?.ticks ?? 0;
  return ticks / TICKS_PER_SECOND;
}

/** Peak resident memory (VmHWM) of the largest process in the tree, in MiB; null when unreadable. */
export function peakRssMiB(root: number): number | null {
  let peak: number | null = null;
  for (const pid of processTree(root)) {
    try {
      const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peak = Math.max(peak ?? 0, Number(match[1]) / 1024);
    } catch {
      // gone meanwhile
    }
  }
  return peak;
}

/** CPU used by each named process over a span of time, in % of one core. */
export class CpuMeter {
  private readonly start: Map<string, number>;
  private readonly startedAt = performance.now();

  constructor(private readonly processes: readonly { name: string; pid: number }[]) {
    this.start = new Map(processes.map((p) => [p.name, cpuSeconds(p.pid)]));
  }

  read(): { name: string; percent: number }[] {
    const elapsed = (performance.now() - this.startedAt) / 1000;
    return this.processes.map((p) => ({
      name: p.name,
      percent: ((cpuSeconds(p.pid) - (this.start.get(p.name) ?? 0)) / elapsed) * 100,
    }));
  }
}
