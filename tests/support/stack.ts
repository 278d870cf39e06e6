import fs from 'node:fs';
import path from 'node:path';
import {
  freePort,
  randomPorts,
  removeStackDir,
  RUN_DIR,
  startService,
  startStack,
  stopPid,
  stopProcesses,
  type ServiceName,
  type StackInfo,
  type StackOptions,
  type StackPorts,
  type PostgresServer,
  type Started,
} from '@pix/devstack';

/** The stack global-setup started for the whole run. */
export function sharedStack(): StackInfo {
  const raw = process.env.TEST_STACK;
  if (!raw) throw new Error('TEST_STACK is not set: run the tests through jest (global-setup starts the stack)');
  return JSON.parse(raw) as StackInfo;
}

export type PrivateStack = StackInfo & {
  ports: StackPorts;
  stop: () => Promise<void>;
  /**
   * Starts one more process of a service (a replica, or a restart) with extra environment; a
   * replica needs its own ops port, so `opsPort` defaults to a fresh one.
   */
  startService: (name: ServiceName, env?: NodeJS.ProcessEnv, opsPort?: number) => Promise<Started>;
  /** Stops a process of this stack (SIGTERM, or SIGKILL for a crash). */
  stopProcess: (proc: Started, signal?: 'SIGTERM' | 'SIGKILL') => Promise<void>;
  /** The processes of a service this stack started, oldest first. */
  processesOf: (name: ServiceName) => Started[];
};

/** The PostgreSQL server global-setup started for the run; each stack keeps its data in a database of its own. */
export function sharedPostgres(): PostgresServer {
  const raw = process.env.TEST_POSTGRES;
  if (!raw) throw new Error('TEST_POSTGRES is not set: run the tests through jest (global-setup starts PostgreSQL)');
  return JSON.parse(raw) as PostgresServer;
}

/**
 * A stack of the test's own, with its own NATS and FerretDB (on a database of its own in the run's
 * PostgreSQL server), for settings the shared one lacks.
 */
export async function startPrivateStack(
  options: Partial<Pick<StackOptions, 'env' | 'services' | 'natsUrl' | 'mongoUrl'>> = {},
): Promise<PrivateStack> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const ports = await randomPorts();
  const stackOptions: StackOptions = { dir, ports, detached: false, postgres: sharedPostgres(), ...options };
  const stack = await startStack(stackOptions);
  const started = [...stack.started];
  const info = { ...stack, started: undefined };
  return {
    ...info,
    ports,
    get processes() {
      return started.map(({ name, pid, stopSignal }) => ({ name, pid, stopSignal }));
    },
    stop: async () => {
      await stopProcesses(started);
      if (!process.env.KEEP_TEST_LOGS) removeStackDir(dir);
    },
    startService: async (name, env = {}, opsPort) => {
      const port = opsPort ?? (await freePort());
      const proc = await startService(
        name,
        { ...stackOptions, env: { ...options.env, ...env }, ports: { ...ports, ops: { ...ports.ops, [name]: port } } },
        stack.natsUrl,
        stack.mongoUrl,
      );
      started.push(proc);
      return proc;
    },
    stopProcess: async (proc, signal = 'SIGTERM') => {
      if (signal === 'SIGKILL') {
        try {
          process.kill(proc.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await stopPid(proc.pid);
    },
    processesOf: (name) => started.filter((proc) => proc.name === name),
  };
}
