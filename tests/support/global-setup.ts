import fs from 'node:fs';
import path from 'node:path';
import { randomPorts, RUN_DIR, startStack } from '../../tools/devstack/src';

/**
 * One whole stack (real nats-server with JetStream, real FerretDB, the four built services) for the
 * test run, on ports of its own so it never meets a `make up` stack. Tests that need other settings
 * start a private one with startPrivateStack().
 */
export default async function globalSetup(): Promise<void> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const stack = await startStack({ dir, ports: await randomPorts(), detached: false });
  process.env.TEST_STACK = JSON.stringify({ ...stack, started: undefined });
  (globalThis as { __stack?: typeof stack }).__stack = stack;
}
