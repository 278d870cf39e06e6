import fs from 'node:fs';
import { stopProcesses, type StackInfo } from '../../tools/devstack/src';

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as { __stack?: StackInfo }).__stack;
  if (!stack) return;
  await stopProcesses(stack.processes);
  if (!process.env.KEEP_TEST_LOGS) fs.rmSync(stack.dir, { recursive: true, force: true });
}
