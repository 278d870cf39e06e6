/**
 * Reads V8 CPU profiles (`node --cpu-prof`) of the stack's services over a window of time, so a
 * figure's profile is the work the figure measured, not start-up or warm-up. Sample times are on
 * the monotonic clock `process.hrtime` reads, in microseconds, the same in every process of the
 * machine: the bench takes the window's ends from its own clock.
 */
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** The parts of a `.cpuprofile` this module reads. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Milliseconds of CPU by name, largest first. */
export type Ranking = [name: string, ms: number][];

export interface ProfileSummary {
  /** The service whose entry script the profile ran (`services/<name>/dist/main.js`), or the file's name. */
  process: string;
  /** CPU milliseconds sampled in the window (idle left out). */
  busyMs: number;
  /** Self time by package: a node_modules package, `node:<module>`, one of ours (`libs/x`), or V8's own. */
  byPackage: Ranking;
  /** Self time by function and place. */
  byFunction: Ranking;
  /** Each sample charged to the nearest frame of our own code above it (so a library's work to its caller). */
  byOwnFrame: Ranking;
}

/** The monotonic clock CPU profiles keep, in microseconds: a window's ends, read by the bench. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Makes every service the stack starts from now on run under `--cpu-prof`, writing into `dir` (emptied
 * first); tools/devstack passes SERVICE_NODE_FLAGS to each service's node. A profile is written as its
 * process exits, so read them after the stack has stopped.
 */
export function profileServices(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  process.env.SERVICE_NODE_FLAGS = `--cpu-prof --cpu-prof-dir=${dir}`;
}

/** Where a frame's code comes from: its package, node's module, our workspace, or V8 itself. */
export function packageOf(url: string): string {
  if (!url) return '(V8 and native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (modules) return (modules[modules.length - 1] as string).replace('node_modules/', '');
  const own = /\/((?:services|libs|tools)\/[^/]+)\//.exec(url);
  return own ? (own[1] as string) : url;
}

function place(frame: CallFrame): string {
  const file = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/((?:services|libs|tools)\/)/, '$1');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

function isOwnCode(url: string): boolean {
  return /\/(services|libs)\//.test(url) && !url.includes('node_modules');
}

function ranked(totals: Map<string, number>, top: number): Ranking {
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
}

function add(totals: Map<string, number>, key: string, ms: number): void {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

/**
 * The profile's samples between `fromUs` and `toUs` (monotonic microseconds), ranked three ways. A
 * sample stands for the time until the next one, as V8's own tools count it.
 */
export function summarize(
  profile: CpuProfile,
  processName: string,
  window: { fromUs: number; toUs: number },
  top = 15,
): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const selfMs = new Map<number, number>();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const id = profile.samples[i] as number;
    if (at < window.fromUs || at > window.toUs) continue;
    if (nodes.get(id)?.callFrame.functionName === '(idle)') continue;
    selfMs.set(id, (selfMs.get(id) ?? 0) + ms);
  }
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const byOwnFrame = new Map<string, number>();
  let busyMs = 0;
  for (const [id, ms] of selfMs) {
    const frame = (nodes.get(id) as ProfileNode).callFrame;
    busyMs += ms;
    add(byPackage, packageOf(frame.url), ms);
    add(byFunction, place(frame), ms);
    let own: number | undefined = id;
    while (own !== undefined && !isOwnCode((nodes.get(own) as ProfileNode).callFrame.url)) own = parents.get(own);
    add(byOwnFrame, own === undefined ? '(no frame of ours)' : place((nodes.get(own) as ProfileNode).callFrame), ms);
  }
  return {
    process: processName,
    busyMs,
    byPackage: ranked(byPackage, top),
    byFunction: ranked(byFunction, top),
    byOwnFrame: ranked(byOwnFrame, top),
  };
}

/** The service a profile ran, from the entry script among its frames. */
export function processOf(profile: CpuProfile): string | undefined {
  for (const { callFrame } of profile.nodes) {
    const entry = /\/(?:services|tools)\/([^/]+)\/dist\/main\.js$/.exec(callFrame.url);
    if (entry) return entry[1];
  }
  return undefined;
}

/** Every profile in `dir`, summarized over the window. */
export function summarizeDir(dir: string, window: { fromUs: number; toUs: number }): ProfileSummary[] {
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => {
      const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
      return summarize(profile, processOf(profile) ?? file, window);
    })
    .sort((a, b) => b.busyMs - a.busyMs);
}

/**
 * A summary as lines of text: each ranking's share of the samples, and that share of `cpuMs`, the
 * process's CPU per unit as /proc counts it. The samples alone overstate CPU on a busy machine: V8
 * samples on the wall clock, so a thread waiting for a core is charged to the function it was in.
 */
export function formatSummary(summary: ProfileSummary, cpuMs: number, unit: string): string[] {
  const lines = [`profile ${summary.process}: ${cpuMs.toFixed(2)} ms of CPU per ${unit}, shared as sampled`];
  const section = (title: string, ranking: Ranking) => {
    lines.push(`  ${title}`);
    for (const [name, ms] of ranking) {
      const share = ms / summary.busyMs;
      lines.push(`    ${(100 * share).toFixed(1).padStart(5)} %  ${(share * cpuMs).toFixed(3)} ms  ${name}`);
    }
  };
  section('self time by package', summary.byPackage);
  section('self time by function', summary.byFunction);
  section('by the nearest frame of our code (what it called included)', summary.byOwnFrame);
  return lines;
}
