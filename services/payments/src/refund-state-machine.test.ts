import { REFUND_STATUSES, type RefundStatus } from '@pix/contracts';
import { canSettleRefund } from './refund-state-machine';

/** docs/design.md "Money going back": pending → succeeded (DEVOLVIDO) or failed (NAO_REALIZADO), and nothing else. */
const DESIGN_TABLE: [RefundStatus, RefundStatus][] = [
  ['pending', 'succeeded'],
  ['pending', 'failed'],
];
const allowed = new Set(DESIGN_TABLE.map(([from, to]) => `${from}->${to}`));
const refused = REFUND_STATUSES.flatMap((from) => REFUND_STATUSES.map((to) => [from, to] as const)).filter(
  ([from, to]) => !allowed.has(`${from}->${to}`),
);

describe('refund state machine', () => {
  it.each(DESIGN_TABLE)('allows %s -> %s', (from, to) => {
    expect(canSettleRefund(from, to)).toBe(true);
  });

  it.each(refused)('refuses %s -> %s', (from, to) => {
    expect(canSettleRefund(from, to)).toBe(false);
  });
});
