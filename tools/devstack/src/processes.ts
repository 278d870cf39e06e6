import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A process this tool started, known by pid so that `down` can stop exactly it. */
export interface Started {
  name: string;
  pid: number;
  /** How to ask it to stop when SIGTERM is not the clean way (PostgreSQL: SIGINT, a fast shutdown). */
  stopSignal?: NodeJS.Signals;
  child?: ChildProcess;
}

/** An OS user to run a process as (PostgreSQL refuses to run as root). */
export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * The environment of the stack's Go servers (NATS, FerretDB): Go code on one thread at a time,
 * unless GOMAXPROCS is set already. With more, Go hands each goroutine made runnable to another
 * idle thread, and each such wakeup costs this VM 0.1-0.2 ms: at 50 creates a second, NATS woke
 * 29-30 times a create with two, 21 with one (docs/development.md, "A wakeup's price"). Kubernetes
 * sets it from each Go server's CPU limit (k8s/src/stateful.ts).
 */
export function goServerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { GOMAXPROCS: '1', ...env };
}

/** Starts a process with its output in a log file; detached ones outlive this process. */
export function launch(
  name: string,
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; logFile: string; detached: boolean; cwd?: string; user?: RunAs },
): Started {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', log, log],
    detached: options.detached,
    uid: options.user?.uid,
    gid: options.user?.gid,
  });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${command})`);
  if (options.detached) child.unref();
  return { name, pid: child.pid, child };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What /proc says of a process: its parent, and its CPU so far. */
export interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks: its own CPU and that of its children already reaped. */
  ticks: number;
}

/** A process's /proc stat; null when it is gone (or this is not Linux). */
export function procStat(pid: number): ProcStat | null {
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

/**
 * The process and all its descendants alive now, root first (PostgreSQL serves each connection
 * from a child of the postmaster, and those would outlive a kill of the postmaster alone).
 */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
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

/** SIGTERM (or the given signal), then SIGKILL after the grace period; resolves when the process is gone. */
export async function stopPid(pid: number, graceMs = 15_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
    while (isAlive(pid)) await sleep(20);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The kernel's range for the local ports of outgoing connections: a port chosen inside it can be
 * taken by any connection opened before the server that was meant to bind it starts.
 */
function ephemeralLow(): number {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 0) return low;
  } catch {
    // not Linux: the IANA dynamic range
  }
  return 49152;
}

/** Above the fixed ports `make up` uses below the ephemeral range (8080 to 15432). */
const PICK_LOW = 20_000;
const handedOut = new Set<number>();

/**
 * Jest's workers pick ports at the same time, each in its own process, and a port one picked could
 * be picked by the other before the first one's server binds it: a test's NATS then found another
 * stack's server on its port (seen in CI: the provisioner's connection timed out). So each worker
 * picks in a slice of the range of its own (JEST_WORKER_ID, from 1), and any other process (the
 * tests' global setup, `make up`, the bench) in slice 0.
 */
const SLICES = 5;

function pickRange(high: number): { low: number; size: number } {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0);
  const slice = Number.isSafeInteger(worker) && worker > 0 ? ((worker - 1) % (SLICES - 1)) + 1 : 0;
  const size = Math.floor((high - PICK_LOW + 1) / SLICES);
  return { low: PICK_LOW + slice * size, size };
}

function listensFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port nothing listens on right now, for a server that starts a little later. Picked at random
 * below the kernel's ephemeral range, so that no outgoing connection can take it in between, in the
 * process's own slice of it (pickRange), and never the same twice in a process.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const { low, size } = pickRange(high);
  if (size < 500) return kernelPort();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * size);
    if (handedOut.has(port)) continue;
    if (await listensFree(port)) {
      handedOut.add(port);
      return port;
    }
  }
  return kernelPort();
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Fails when something already listens on 127.0.0.1:port: a server started there would fail to
 * bind, and whatever else answers on the port would be taken for it.
 */
export async function assertPortFree(port: number, name: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', () => reject(new Error(`${name}: port ${port} on 127.0.0.1 is already in use`)));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

/** Waits until something accepts TCP connections on host:port. */
export async function waitForPort(host: string, port: number, timeoutMs: number, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host, port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${name} did not listen on ${host}:${port} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The end of a log file, to put in an error: the reason a process died is there. */
export function logTail(logFile: string, lines = 25): string {
  try {
    return fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Waits until an HTTP endpoint answers 200 (a service's /readyz); a failure quotes the process's log. */
export async function waitForHttp(
  url: string,
  timeoutMs: number,
  name: string,
  alive: () => boolean,
  logFile?: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const withLog = (message: string) => (logFile ? `${message}; the end of ${logFile}:\n${logTail(logFile)}` : message);
  for (;;) {
    if (!alive()) throw new Error(withLog(`${name} exited before becoming ready`));
    const ok = await fetch(url).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(withLog(`${name} was not ready at ${url} within ${timeoutMs} ms`));
    await sleep(150);
  }
}
