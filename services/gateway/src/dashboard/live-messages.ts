import type { PaymentStatus, PaymentWebhookState, RefundStatus } from '@pix/contracts';

/**
 * What the server tells the dashboard's script (browser/): the live stream's messages and the
 * texts the script shows. Data only, never markup: the script puts every string in with
 * textContent. Shared as types by the gateway and the script.
 */

/** A payment created or changed (`event: payment`), with the words the list and the badge show. */
export interface LivePayment {
  id: string;
  event: 'payment.created' | 'payment.status_changed';
  status: PaymentStatus;
  sequence: number;
  statusLabel: string;
  /** The list's row of the payment, for a list that does not show it yet. */
  row: {
    amount: string;
    createdAt: string;
    /** São Paulo's time, and the UTC one shown on hover. */
    createdAtText: string;
    createdAtUtc: string;
    email: string | null;
    /** Null when the payment has no webhookUrl. */
    webhook: PaymentWebhookState | null;
    webhookLabel: string;
  };
}

/** A refund's event (`event: refund`): the payment's page refreshes its refunds and timeline. */
export interface LiveRefund {
  id: string;
  event: 'refund.created' | 'refund.succeeded' | 'refund.failed';
  refundId: string;
  status: RefundStatus;
  sequence: number;
}

/** The texts of the dashboard's script (the body's data-texts). */
export interface DashboardScriptTexts {
  live: { on: string; off: string };
  networkError: string;
  sending: string;
  total: { one: string; many: string };
  /** The list's column names, which a row shows as cards on a narrow screen. */
  columns: { amount: string; status: string; createdAt: string; email: string; webhook: string };
  noWebhook: string;
}
