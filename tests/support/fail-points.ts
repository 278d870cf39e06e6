import path from 'node:path';
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
