import type { components, paths } from './openapi.js';

type Schemas = components['schemas'];

/** A payment, as create, get and list answer it. */
export type Payment = Schemas['Payment'];
export type PaymentList = Schemas['PaymentList'];
export type PaymentStatus = Payment['status'];
/** The create body: amount in BRL (at most two decimals), optional email, observation, webhookUrl. */
export type CreatePaymentBody = Schemas['CreatePaymentBody'];
export type ListPaymentsQuery = NonNullable<paths['/public-api/v1/payments']['get']['parameters']['query']>;

/** A webhook event as the Events API lists it, its body exactly as delivered. */
export type Event = Schemas['Event'];
/** One event with every delivery attempt. */
export type EventDetail = Schemas['EventDetail'];
export type EventAttempt = EventDetail['attempts'][number];
export type EventList = Schemas['EventList'];
export type EventRedelivery = Schemas['EventRedelivery'];
export type ListEventsQuery = NonNullable<paths['/public-api/v1/events']['get']['parameters']['query']>;

/** A refund of a payment: pending, then succeeded or failed. */
export type Refund = Schemas['Refund'];
export type RefundStatus = Refund['status'];
export type RefundList = Schemas['RefundList'];
/** The refund body: `amount` in BRL (absent: all that is left) and a `reason` (the payer reads it). */
export type CreateRefundBody = Schemas['CreateRefundBody'];

/** A payment's dispute (a MED claim): present on a payment only while it has one. */
export type Dispute = Schemas['Dispute'];
/** The defence body: `text`, 1 to 1000 characters, forwarded to the PSP once. */
export type DisputeDefenseBody = Schemas['DisputeDefenseBody'];

/** A movement of the store's money, signed BRL: a Pix in (+), a refund, a MED return, a late Pix's return (−). */
export type BalanceTransaction = Schemas['BalanceTransaction'];
export type BalanceTransactionType = BalanceTransaction['type'];
export type BalanceTransactionList = Schemas['BalanceTransactionList'];
/** page, limit, `from` and `to` (AAAA-MM-DD, days in America/Sao_Paulo, inclusive) and `type`. */
export type ListBalanceTransactionsQuery = NonNullable<
  paths['/public-api/v1/balance-transactions']['get']['parameters']['query']
>;
/** A day's statement (America/Sao_Paulo): received, refunded, returned by MED, at risk, net, counts. */
export type Statement = Schemas['Statement'];

/** Any webhook body, told apart by `event`: a payment's, a refund's or a dispute's. */
export type Webhook = Schemas['Webhook'];
/** A payment webhook body: payment.created or payment.status_changed. */
export type PaymentWebhook = Schemas['PaymentWebhook'];
export type PaymentCreatedWebhook = Schemas['PaymentCreatedWebhook'];
export type PaymentStatusChangedWebhook = Schemas['PaymentStatusChangedWebhook'];
/** A refund webhook body: refund.created, refund.succeeded or refund.failed. */
export type RefundWebhook = Schemas['RefundWebhook'];
export type RefundCreatedWebhook = Schemas['RefundCreatedWebhook'];
export type RefundSucceededWebhook = Schemas['RefundSucceededWebhook'];
export type RefundFailedWebhook = Schemas['RefundFailedWebhook'];
/** A dispute webhook body: payment.dispute_opened, payment.dispute_reminder or payment.dispute_closed. */
export type DisputeWebhook = Schemas['DisputeWebhook'];
export type DisputeOpenedWebhook = Schemas['DisputeOpenedWebhook'];
export type DisputeReminderWebhook = Schemas['DisputeReminderWebhook'];
export type DisputeClosedWebhook = Schemas['DisputeClosedWebhook'];

export type SandboxPayment = Schemas['SandboxPayment'];
export type SandboxAnalysis = Schemas['SandboxAnalysis'];
export type SandboxRefundFailure = Schemas['SandboxRefundFailure'];
/** A MED return the sandbox PSP made: the Pix returned, how much and why. */
export type SandboxMedReturn = Schemas['SandboxMedReturn'];
/** The optional body of sandbox med: `amount` (all that is left of the Pix when absent) and `nature`. */
export type SandboxMedBody = NonNullable<
  paths['/public-api/v1/sandbox/payments/{id}/med']['post']['requestBody']
>['content']['application/json'];
/**
 * The optional body of sandbox pay: another amount than the payment's sends it to review; `late` a
 * Pix after the fact; `dropCallback` a Pix whose callback the PSP loses (reconciliation finds it).
 */
export type SandboxPayBody = NonNullable<
  paths['/public-api/v1/sandbox/payments/{id}/pay']['post']['requestBody']
>['content']['application/json'];

/** The API's error body. */
export type ErrorBody = Schemas['Error'];
