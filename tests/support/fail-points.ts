import path from 'node:path';
import type { Started } from '@pix/devstack';
import type { PaymentEvent } from '@pix/contracts';

/** How a service stopped at its fail point exits. */
export const FAIL_POINT_EXIT_CODE = 86;

/**
 * The points fail-point.js can plant: in payments' publish of a write's messages, in the sandbox
 * PSP's decisions, in its taking of a refund, and in the adapter's reconciliation with it.
 */
export type FailPoint =
  | `${'crash-before-publish' | 'crash-after-publish'}:${PaymentEvent['body']['event']}`
  | 'crash-after-decision'
  | 'crash-after-refund-taken'
  | 'crash-during-reconciliation';

/**
 * The environment that starts one service (stack.startService) with a fail point: its node preloads
 * fail-point.js, which plants the point named.
 */
export function failPointEnv(point: FailPoint): NodeJS.ProcessEnv {
  const preload = `--require ${path.join(__dirname, 'fail-point.js')}`;
  return {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '),
    FAIL_POINT: point,
    FAIL_POINT_EXIT_CODE: String(FAIL_POINT_EXIT_CODE),
  };
}

/** How a started process ended: its exit code, once it has exited (at once if it has). */
export function exited(proc: Started): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.child?.exitCode !== null && proc.child?.exitCode !== undefined) resolve(proc.child.exitCode);
    else proc.child?.once('exit', (code) => resolve(code));
  });
}
