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

/** A TCP port nothing listens on right now, chosen by the kernel. */
export function freePort(): Promise<number> {
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

/** Waits until an HTTP endpoint answers 200 (a service's /readyz). */
export async function waitForHttp(url: string, timeoutMs: number, name: string, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error(`${name} exited before becoming ready`);
    const ok = await fetch(url).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms`);
    await sleep(150);
  }
}
