/**
 * The platform's contracts, in two surfaces (as nats.js keeps `mod.ts` apart from `internal_mod.ts`):
 * what merchants and customers meet, and what only the services say to each other. Every name is
 * listed: a new one is exported on purpose, in the surface it belongs to.
 */

// ---- Public surface: the HTTP API's bodies, the webhooks, the messages (spec 2 to 6) ----
export {
  PUBLIC_STATUSES,
  INTERNAL_STATUSES,
  PAYMENT_STATUSES,
  type PublicStatus,
  type PaymentStatus,
} from './statuses';
export {
  MIN_AMOUNT_CENTS,
  MAX_AMOUNT_CENTS,
  AMOUNT_STEP_BRL,
  PIX_MAX_AMOUNT_CENTS,
  brlToCents,
  centsToBrl,
} from './money';
export {
  PaymentSchema,
  PaymentListSchema,
  ErrorBodySchema,
  LIST_BOUNDS,
  MAX_OBSERVATION_CHARS,
  MAX_WEBHOOK_URL_CHARS,
  EXPIRES_IN_BOUNDS,
  type Payment,
  type PaymentList,
  type ErrorBody,
} from './payment';
export {
  PaymentCreatedWebhookSchema,
  PaymentStatusChangedWebhookSchema,
  PaymentWebhookSchema,
  RefundCreatedWebhookSchema,
  RefundSucceededWebhookSchema,
  RefundFailedWebhookSchema,
  RefundWebhookSchema,
  WebhookBodySchema,
  EVENT_TYPES,
  PAYMENT_END_CAUSES,
  type EventType,
  type PaymentEndCause,
  type WebhookBody,
} from './events';
export {
  DISPUTE_STATUSES,
  DISPUTE_DECISIONS,
  DISPUTE_REMINDER_HOURS,
  MAX_DISPUTE_DEFENSE_CHARS,
  OPEN_DISPUTES_LIST_MAX,
  OpenDisputeListSchema,
  type OpenDisputeList,
  DisputeSchema,
  DisputeOpenedWebhookSchema,
  DisputeClosedWebhookSchema,
  DisputeReminderWebhookSchema,
  DisputeWebhookSchema,
  type Dispute,
  type DisputeStatus,
  type DisputeDecision,
  type DisputeReminderHours,
} from './dispute';
export {
  REFUND_STATUSES,
  REFUND_ORIGINS,
  REFUND_NATURES,
  MED_NATURES,
  type MedNature,
  MAX_REFUND_REASON_CHARS,
  REFUND_WINDOW_MS,
  MAX_MERCHANT_REFUNDS,
  RefundSchema,
  RefundListSchema,
  PlatformRefundReasons,
  type Refund,
  type RefundList,
  type RefundStatus,
  type RefundOrigin,
  type RefundNature,
} from './refund';
export {
  CreatePaymentBodySchema,
  CreatePaymentInputSchema,
  CreateRefundBodySchema,
  CreateRefundInputSchema,
  DisputeDefenseBodySchema,
  DisputeDefenseInputSchema,
  EventListQueryParamsSchema,
  ListQueryParamsSchema,
  BalanceListQueryParamsSchema,
  SandboxPayBodySchema,
  SandboxMedBodySchema,
  checkRequest,
  isPaymentId,
  type CreatePaymentInput,
  type CreateRefundInput,
  type DisputeDefenseInput,
  type EventListQuery,
  type ListQuery,
  type RequestCheck,
  type SandboxPayOptions,
  type SandboxMedOptions,
} from './requests';
export {
  EventSchema,
  EventDetailSchema,
  EventListSchema,
  EventRedeliverySchema,
  isEventId,
  type EventAttempt,
  type EventRedelivery,
  type PublicEvent,
  type PublicEventDetail,
  type PublicEventList,
} from './events-api';
export { WEBHOOK_ATTEMPT_OUTCOMES, type WebhookAttemptOutcome, type WebhookDeliveryStatus } from './webhooks';
export { PaymentPageTexts, pagePhase, formatBrl, type PagePhase, type PaymentPageUpdate } from './payment-page';
export { DashboardTexts, StatusLabels, PAYMENT_WEBHOOK_STATES, type PaymentWebhookState } from './dashboard';
export {
  BALANCE_TRANSACTION_TYPES,
  STATEMENT_TIME_ZONE,
  STATEMENT_FIRST_DAY,
  BalanceTransactionSchema,
  BalanceTransactionListSchema,
  StatementSchema,
  StatementTexts,
  type BalanceTransaction,
  type BalanceTransactionList,
  type BalanceTransactionType,
  type Statement,
} from './balance';
export { TokenPrefixes, LivemodeSchema, tokenPrefix } from './modes';
export { ErrorMessages, ParserErrorMessages, QueryMessages, SandboxMessages, DomainErrorAnswers } from './errors';

// ---- Internal surface: what the services say to each other over NATS, and what they store ----
export {
  defineRpc,
  type RpcAccess,
  type RpcDefinition,
  type RpcRequest,
  type RpcParsedRequest,
  type RpcReplyBody,
  type RpcReply,
} from './rpc/define-rpc';
export { PaymentsRpc, type CreatePaymentRequest } from './rpc/payments';
export {
  BalanceListQuerySchema,
  BalanceExportPageSchema,
  ExportCursorSchema,
  EXPORT_PAGE_LIMIT,
  StatementMonthSchema,
  dayStart,
  isDay,
  isMonth,
  isStatementDay,
  monthDays,
  nextDay,
  previousDay,
  statementDay,
  type BalanceExportPage,
  type BalanceListQuery,
  type ExportCursor,
  type StatementMonth,
  type StatementTotals,
} from './balance';
export {
  AdapterRpc,
  type CreateChargeReply,
  type ListPixReply,
  type ReadChargeReply,
  type ReadPixReply,
} from './rpc/adapter';
export {
  ListedPixSchema,
  nextStatementCheck,
  PIX_READ_MAX,
  STATEMENT_CHECK_HOUR,
  STATEMENT_CHECK_LIST_MAX,
  STATEMENT_DIFFERENCE_KINDS,
  STATEMENT_DIFFERENCES_KEPT,
  StatementCheckDueSchema,
  StatementCheckResultSchema,
  StatementCheckedSchema,
  type StatementChecked,
  type ListedDevolucao,
  type ListedPix,
  type StatementCheckReply,
  type StatementCheckResult,
  type StatementDifference,
  type StatementDifferenceKind,
} from './statement-check';
export {
  SandboxRpc,
  SandboxPayReplySchema,
  SandboxAnalysisReplySchema,
  SandboxFailNextRefundReplySchema,
  SandboxMedReplySchema,
} from './rpc/sandbox';
export { GatewayRpc } from './rpc/gateway';
export {
  DispatcherRpc,
  WebhooksListReplySchema,
  MAX_PAYMENT_IDS,
  type EndpointStats,
  type EndpointStatsReply,
} from './rpc/dispatcher';
export { type RpcError } from './rpc/rpc-error';
export { DOMAIN_ERROR_CODES, DomainError, type DomainErrorCode } from './domain-errors';
export {
  SIGNED_FACT_SUBJECTS,
  FACT_REFUSAL_REASONS,
  REFUSED_PAYLOAD_CHARS,
  REFUSED_FACTS_LIST_MAX,
  FactHeaders,
  RefusedFactSchema,
  isSignedFactSubject,
  type FactRefusalReason,
  type RefusedFact,
} from './signed-facts';
export { Subjects, subjectMatches, type PaymentDueKind, type PaymentCountKey, type PixCommandKind } from './subjects';
export {
  Streams,
  Consumers,
  QueueGroups,
  leaderElectedAdvisory,
  type StreamDefinition,
  type ConsumerDefinition,
} from './streams';
export { Notices, type NoticeDefinition } from './notices';
export {
  SERVICE_IDENTITIES,
  NATS_IDENTITIES,
  inboxPrefix,
  type ServiceIdentity,
  type NatsIdentity,
} from './identities';
export {
  natsPermissions,
  natsAccounts,
  accountOf,
  allRpcs,
  RPC_GROUPS,
  AuthBucketStream,
  PaymentViewsBucketStream,
  JETSTREAM_ACCOUNT,
  type NatsPermissions,
  type NatsAccount,
  type NatsImport,
  type NatsExport,
} from './permissions';
export { natsAuthorization, isUserPublicKey } from './nats-authorization';
export {
  PaymentEventSchema,
  PixPaidEventSchema,
  PixAnalysisEventSchema,
  PixRefundSettledEventSchema,
  PixDisputeEventSchema,
  type PaymentEvent,
  type PixPaidEvent,
  type PixAnalysisEvent,
  type PixRefundSettledEvent,
  type PixDisputeEvent,
} from './events';
export {
  RefundCommandSchema,
  CancelCommandSchema,
  DefenseCommandSchema,
  type RefundCommand,
  type CancelCommand,
  type DefenseCommand,
} from './pix-commands';
export {
  WebhookAttemptMessageSchema,
  WebhookDeadLetterSchema,
  WebhookSecretsRotatedSchema,
  type WebhookAttemptMessage,
  type WebhookDeadLetter,
  type WebhookDelivery,
} from './webhooks';
export { type PaymentPublicView } from './payment-page';
export { AuthBucket, AuthSessionStateSchema, AuthStoreStateSchema, AuthTokenStateSchema } from './auth';
export { PaymentViewsBucket, PaymentViewSchema, type PaymentView } from './payment-views';
export { modeScope, modeName, MODE_NAMES, RequestLivemodeSchema, type ModeName } from './modes';
export { txidFor, refundPspId, MAX_REFUNDS_PER_CHARGE } from './pix';
