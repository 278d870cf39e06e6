import { removeStackDir, stopProcesses, type Started, type StackInfo } from '../../tools/devstack/src';

export default async function globalTeardown(): Promise<void> {
  const { __stack: stack, __postgres: postgres } = globalThis as { __stack?: StackInfo; __postgres?: Started };
  // The shared PostgreSQL server goes last: every stack's FerretDB uses it.
  if (stack) await stopProcesses(stack.processes);
  if (postgres) await stopProcesses([postgres]);
  if (stack && !process.env.KEEP_TEST_LOGS) removeStackDir(stack.dir);
}
