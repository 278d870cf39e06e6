import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '@pix/devstack';

const run = promisify(execFile);

/** Runs the admin CLI as a user would (`npm run -s admin -- ...`), against the given NATS. */
export async function admin<T = Record<string, unknown>>(natsUrl: string, ...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'tools/admin/dist/main.js'), ...args], {
    env: { ...process.env, NATS_URL: natsUrl },
  });
  return JSON.parse(stdout) as T;
}

/** The same, for a command expected to fail: its exit code and stderr. */
export async function adminFails(natsUrl: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [path.join(ROOT, 'tools/admin/dist/main.js'), ...args], {
      env: { ...process.env, NATS_URL: natsUrl },
    });
  } catch (err) {
    const failure = err as { code: number; stderr: string };
    return { code: failure.code, stderr: failure.stderr };
  }
  throw new Error(`admin ${args.join(' ')} succeeded but was expected to fail`);
}

export interface StoreCredentials {
  storeId: string;
  token: string;
  webhookSecret: string;
}

export function createStore(natsUrl: string, name = 'Test store'): Promise<StoreCredentials> {
  return admin<StoreCredentials>(natsUrl, 'store', 'create', '--name', name);
}
