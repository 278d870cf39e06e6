import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, type StackNats } from '@pix/devstack';

const run = promisify(execFile);

/** The admin CLI's environment for a stack: its NATS, and the operator's credentials there. */
function adminEnv(stack: StackNats): NodeJS.ProcessEnv {
  const { NATS_NKEY_SEED_FILE: _theirs, ...env } = process.env;
  const seedFile = stack.natsCredentials?.admin;
  return { ...env, NATS_URL: stack.natsUrl, ...(seedFile && { NATS_NKEY_SEED_FILE: seedFile }) };
}

/** Runs the admin CLI as a user would (`npm run -s admin -- ...`), against the given stack's NATS. */
export async function admin<T = Record<string, unknown>>(stack: StackNats, ...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'tools/admin/dist/main.js'), ...args], {
    env: adminEnv(stack),
  });
  return JSON.parse(stdout) as T;
}

/** The same, for a command expected to fail: its exit code and stderr. */
export async function adminFails(stack: StackNats, ...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [path.join(ROOT, 'tools/admin/dist/main.js'), ...args], { env: adminEnv(stack) });
  } catch (err) {
    const failure = err as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
  throw new Error(`admin ${args.join(' ')} succeeded but was expected to fail`);
}

/** What `store create` prints: the test token and secret, and the live ones beside them. */
export interface StoreCredentials {
  storeId: string;
  token: string;
  webhookSecret: string;
  liveToken: string;
  liveWebhookSecret: string;
}

export function createStore(stack: StackNats, name = 'Test store'): Promise<StoreCredentials> {
  return admin<StoreCredentials>(stack, 'store', 'create', '--name', name);
}
