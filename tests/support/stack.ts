import fs from 'node:fs';
import path from 'node:path';
import { randomPorts, RUN_DIR, startStack, stopProcesses, type StackInfo, type StackOptions } from '@pix/devstack';

/** The stack global-setup started for the whole run. */
export function sharedStack(): StackInfo {
  const raw = process.env.TEST_STACK;
  if (!raw) throw new Error('TEST_STACK is not set: run the tests through jest (global-setup starts the stack)');
  return JSON.parse(raw) as StackInfo;
}

export type PrivateStack = StackInfo & { stop: () => Promise<void> };

/** A stack of the test's own, with its own NATS and FerretDB, for settings the shared one lacks. */
export async function startPrivateStack(
  options: Partial<Pick<StackOptions, 'env' | 'services' | 'natsUrl' | 'mongoUrl'>> = {},
): Promise<PrivateStack> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const stack = await startStack({ dir, ports: await randomPorts(), detached: false, ...options });
  return {
    ...stack,
    stop: async () => {
      await stopProcesses(stack.processes);
      if (!process.env.KEEP_TEST_LOGS) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
