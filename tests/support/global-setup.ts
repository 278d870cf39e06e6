import fs from 'node:fs';
import path from 'node:path';
import { freePort, randomPorts, RUN_DIR, startPostgres, startStack, stopProcesses } from '../../tools/devstack/src';

/**
 * One whole stack (real nats-server with JetStream, real FerretDB on PostgreSQL, the four built
 * services) for the test run, on ports of its own so it never meets a `make up` stack. Tests that
 * need other settings start a private one with startPrivateStack(). One PostgreSQL server serves
 * the run: every stack gets a database of its own on it and a FerretDB process of its own, which
 * keeps a private stack's start-up short.
 */
export default async function globalSetup(): Promise<void> {
  fs.mkdirSync(RUN_DIR, { recursive: true });
  const dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const postgres = await startPostgres(dir, await freePort(), false);
  process.env.TEST_POSTGRES = JSON.stringify(postgres.server);
  (globalThis as { __postgres?: typeof postgres.started }).__postgres = postgres.started;
  // As `make up`: test mode's PSP is the simulator, live mode's a second one standing in for a real PSP.
  const options = { dir, ports: await randomPorts(), detached: false, postgres: postgres.server, livePsp: true };
  const stack = await startStack(options).catch(async (err: unknown) => {
    await stopProcesses([postgres.started]);
    throw err;
  });
  process.env.TEST_STACK = JSON.stringify({ ...stack, started: undefined });
  (globalThis as { __stack?: typeof stack }).__stack = stack;
}
