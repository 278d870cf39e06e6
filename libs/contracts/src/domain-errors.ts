/**
 * Why a service refuses a request, as a code: services raise these over NATS and never an HTTP
 * status or a merchant's message. The edges map a code to what their reader sees (the gateway's
 * HTTP answers, the admin CLI's stderr) through DomainErrorAnswers (errors.ts).
 */
export const DOMAIN_ERROR_CODES = [
  'payment_not_found',
  'idempotency_key_reused',
  /** The state machine does not allow the transition (params: from, to). */
  'transition_not_allowed',
  /** An admin transition to a status only the lifecycle reaches (params: to). */
  'status_not_admin',
  'transition_contended',
  'event_not_found',
  'event_still_pending',
  /** Admin CLI: no webhook delivery of the event (params: eventId). */
  'delivery_not_found',
  'delivery_still_pending',
  /** params: storeId. */
  'store_not_found',
  'token_not_found',
  /** None of the store's webhook secrets opens (sealed under a retired key): params storeId, kids. */
  'webhook_secrets_unreadable',
  /** The sandbox PSP has no charge for the payment. */
  'charge_not_found',
  /** The payment is the store's, but its charge is not at the PSP yet (it was down at create). */
  'charge_missing',
  'charge_expired',
  'charge_paid_otherwise',
  'nothing_held',
  /** The charge was removed (the payment cancelled): it can no longer be paid. */
  'charge_removed',
  /** A refund of a payment that is not approved (params: status). */
  'refund_not_approved',
  /** The PSP's 90 days to return the Pix have passed. */
  'refund_window_closed',
  /** More than is left to refund (params: leftCents). */
  'refund_above_left',
  /** The payment has MAX_MERCHANT_REFUNDS refunds already. */
  'refund_limit_reached',
  'refund_not_found',
  /** Only a pending payment can be cancelled (params: status). */
  'cancel_not_pending',
  /** A refund of a payment whose dispute is open: the PSP blocked its money. */
  'refund_dispute_open',
  /** A defence of a payment without an open dispute. */
  'dispute_not_open',
  'dispute_deadline_passed',
  /** The dispute's defence was sent already (with another text). */
  'dispute_defended',
  'analysis_decided',
  /** The sandbox PSP has received no Pix for the payment's charge: nothing it could return. */
  'nothing_paid',
  /** A return of the PSP's own larger than the Pix it returns. */
  'return_above_pix',
  /** The Pix was returned in full already. */
  'nothing_left_to_return',
  'callback_failed',
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** A refusal a service raises; serveRpc carries it to the caller, where callRpc raises it again. */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    readonly params: Record<string, string> = {},
  ) {
    super(code);
    this.name = 'DomainError';
  }
}

/** A domain refusal as it travels over NATS. */
export interface DomainErrorBody {
  code: DomainErrorCode;
  params: Record<string, string>;
}
