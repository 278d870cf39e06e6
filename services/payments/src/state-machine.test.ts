import { PAYMENT_STATUSES, type PaymentStatus } from '@pix/contracts';
import { canTransition } from './state-machine';

/** docs/design.md "Payment states", row by row, written out again here so the test checks the module. */
const DESIGN_TABLE: [PaymentStatus, PaymentStatus, string][] = [
  ['pending', 'approved', 'PSP confirms a payment of the exact amount'],
  ['pending', 'review', 'PSP confirms another amount, or flags it for analysis'],
  ['pending', 'not_approved', 'charge expires unpaid, or PSP removes it'],
  ['review', 'approved', 'analysis clears'],
  ['review', 'not_approved', 'analysis rejects, or REVIEW_TIMEOUT: automatic refund'],
  ['approved', 'paid', 'settlement'],
  ['paid', 'withdrawal_processing', 'withdrawal requested'],
  ['withdrawal_processing', 'receipt_sent', 'receipt sent'],
  ['pending', 'rejected', 'rejected internally'],
  ['review', 'rejected', 'rejected internally'],
];

const allowed = new Set(DESIGN_TABLE.map(([from, to]) => `${from}->${to}`));
const refused = PAYMENT_STATUSES.flatMap((from) => PAYMENT_STATUSES.map((to) => [from, to] as const)).filter(
  ([from, to]) => !allowed.has(`${from}->${to}`),
);

describe('payment state machine', () => {
  it.each(DESIGN_TABLE)('allows %s -> %s (%s)', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each(refused)('refuses %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
  });

  it('covers every pair of statuses', () => {
    expect(DESIGN_TABLE.length + refused.length).toBe(PAYMENT_STATUSES.length ** 2);
  });
});
