import { execFile } from 'node:child_process';
import path from 'node:path';
import { ROOT, type StackInfo } from '@pix/devstack';
import { createStore } from './admin';
import { WebhookReceiver } from './webhook-receiver';

/** The scenario every SDK plays (clients/conformance/README.md). */
export const CONFORMANCE_DIR = path.join(ROOT, 'clients/conformance');

/** What a conformance runner is given (clients/conformance/README.md lists them). */
export interface ConformanceEnv {
  PIX_BASE_URL: string;
  PIX_TOKEN: string;
  PIX_WEBHOOK_SECRET: string;
  PIX_WEBHOOK_URL: string;
  PIX_CONFORMANCE_DIR: string;
}

/**
 * A fresh store (made with the admin CLI, which holds the operator's credentials) and a receiver
 * that answers every webhook 200: the scenario's counts and pages assume a store of its own.
 */
export async function conformanceSetup(
  stack: StackInfo,
  name: string,
): Promise<{ env: ConformanceEnv; receiver: WebhookReceiver }> {
  const receiver = new WebhookReceiver();
  const webhookUrl = await receiver.start();
  const store = await createStore(stack, name);
  return {
    receiver,
    env: {
      PIX_BASE_URL: stack.gatewayUrl,
      PIX_TOKEN: store.token,
      PIX_WEBHOOK_SECRET: store.webhookSecret,
      PIX_WEBHOOK_URL: webhookUrl,
      PIX_CONFORMANCE_DIR: CONFORMANCE_DIR,
    },
  };
}

/**
 * Runs a language's runner as a child process with the conformance variables; resolves with its
 * output when it exits 0, and otherwise fails with that output, so a failing step is on screen.
 */
export function runConformanceRunner(
  command: string,
  args: string[],
  env: ConformanceEnv,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd ?? ROOT,
        env: { ...(options.env ?? process.env), ...env },
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (err) reject(new Error(`${command} ${args.join(' ')} failed (${err.message.split('\n')[0]}):\n${output}`));
        else resolve(output);
      },
    );
  });
}
