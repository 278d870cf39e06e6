import fs from 'node:fs';
import path from 'node:path';
import {
  freePort,
  PSP_SIMULATOR,
  randomPorts,
  readLocalSecrets,
  SERVICE_HEAP_FLAGS,
  startPspSimulator,
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
  startService: (
    name: ServiceName,
    env?: NodeJS.ProcessEnv,
    opsPort?: number,
    /** Listening ports of its own (a second gateway or adapter replica), instead of the stack's. */
    own?: Partial<Pick<StackPorts, 'gateway' | 'adapterHttp' | 'adapterLiveHttp'>>,
  ) => Promise<Started>;
  /** Starts the stack's PSP simulator again (after stopProcess), with extra environment (a fail point). */
  startPspSimulator: (env?: NodeJS.ProcessEnv) => Promise<Started>;
  /** Records a restarted process (NATS, the database) in place of the one it replaces, so stop() stops it in order. */
  replaceProcess: (old: { pid: number }, next: Started) => void;
  /** Stops a process of this stack (SIGTERM, or SIGKILL for a crash). */
  stopProcess: (proc: Started, signal?: 'SIGTERM' | 'SIGKILL') => Promise<void>;
  /** The processes of a service this stack started, oldest first. */
  processesOf: (name: ServiceName) => Started[];
  /** The PSP simulator's processes this stack started, oldest first. */
  simulatorProcesses: () => Started[];
};

/** The PostgreSQL server global-setup started for the run; each stack keeps its data in a database of its own. */
export function sharedPostgres(): PostgresServer {
  const raw = process.env.TEST_POSTGRES;
  if (!raw) throw new Error('TEST_POSTGRES is not set: run the tests through jest (global-setup starts PostgreSQL)');
  return JSON.parse(raw) as PostgresServer;
}

export interface PrivateStackOptions extends Partial<
  Pick<
    StackOptions,
    | 'env'
    | 'pspEnv'
    | 'pspSimulator'
    | 'livePsp'
    | 'services'
    | 'natsUrl'
    | 'natsCredentials'
    | 'mongoUrl'
    | 'secretsFile'
  >
> {
  /** How many NATS servers: more than one forms a JetStream cluster (streams replicated to each). */
  natsMembers?: number;
  /** A PostgreSQL server of the stack's own rather than the run's, for a test that kills the database. */
  ownPostgres?: boolean;
}

/**
 * A stack of the test's own, with its own NATS and FerretDB (on a database of its own in the run's
 * PostgreSQL server, unless `ownPostgres`), for settings the shared one lacks.
 */
export async function startPrivateStack(options: PrivateStackOptions = {}): Promise<PrivateStack> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const { natsMembers = 1, ownPostgres = false, ...rest } = options;
  const ports = await randomPorts(natsMembers);
  const stackOptions: StackOptions = {
    dir,
    ports,
    detached: false,
    ...(!ownPostgres && { postgres: sharedPostgres() }),
    ...rest,
  };
  const stack = await startStack(stackOptions);
  // A replica or a restart logs in as the stack's services do, with the stack's keys.
  stackOptions.secretsFile = stack.secretsFile;
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
    startService: async (name, env = {}, opsPort, own = {}) => {
      const port = opsPort ?? (await freePort());
      // An adapter replica on a callback port of its own has one for its live connection too.
      if (own.adapterHttp !== undefined && own.adapterLiveHttp === undefined) own.adapterLiveHttp = await freePort();
      const proc = await startService(
        name,
        {
          ...stackOptions,
          env: { ...options.env, ...env },
          ports: { ...ports, ...own, ops: { ...ports.ops, [name]: port } },
        },
        stack,
        stack.mongoUrl,
      );
      started.push(proc);
      return proc;
    },
    startPspSimulator: async (env = {}) => {
      const { psp } = stack;
      if (!psp) throw new Error('this stack runs no PSP simulator');
      const simulator = await startPspSimulator({
        dir,
        ports: ports.psp,
        mongoUrl: stack.mongoUrl,
        secrets: readLocalSecrets(stack.secretsFile),
        ownLogin: !options.mongoUrl,
        env: { ...options.pspEnv, ...env },
        detached: false,
        nodeFlags: SERVICE_HEAP_FLAGS,
        callbackUrl: psp.callbackUrl,
      });
      started.push(simulator.started);
      return simulator.started;
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
    replaceProcess: (old, next) => {
      const at = started.findIndex((proc) => proc.pid === old.pid);
      if (at < 0) throw new Error(`process ${old.pid} is not this stack's`);
      started[at] = next;
    },
    processesOf: (name) => started.filter((proc) => proc.name === name),
    simulatorProcesses: () => started.filter((proc) => proc.name === PSP_SIMULATOR),
  };
}
