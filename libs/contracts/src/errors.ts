import type { DomainErrorCode } from './domain-errors';
import { formatBrl } from './payment-page';
import { MAX_DISPUTE_DEFENSE_CHARS } from './dispute';
import { EXPIRES_IN_BOUNDS } from './payment';
import { MAX_MERCHANT_REFUNDS, MAX_REFUND_REASON_CHARS } from './refund';
import { INTERNAL_STATUSES } from './statuses';

/**
 * Every message the public API can answer with, in one table. The spec's messages are served
 * verbatim (Portuguese where the spec is Portuguese, class-validator English where the spec is).
 */
export const ErrorMessages = {
  bearerMissing: 'Bearer token ausente.',
  tokenInvalid: 'Token inválido ou expirado.',
  storeInactive: 'Loja inativa.',
  amountMin: 'Valor mínimo permitido para geração de pagamentos é R$ 5,00.',
  amountMax: 'Valor máximo permitido para geração de pagamentos é R$ 3000,00.',
  amountInvalid: 'amount must be a number conforming to the specified constraints',
  amountTooPrecise: 'Valor deve ter no máximo duas casas decimais (centavos).',
  emailInvalid: 'email must be an email',
  observationTooLong: 'observation must be shorter than or equal to 2048 characters',
  observationInvalid: 'observation must be a string',
  webhookUrlInvalid: 'webhookUrl must be a URL',
  expiresInInvalid: `expiresIn deve ser um número inteiro de segundos entre ${EXPIRES_IN_BOUNDS.min} e ${EXPIRES_IN_BOUNDS.max.toLocaleString('pt-BR')} (30 dias).`,
  paymentNotFound: 'Pagamento não encontrado.',
  routeNotFound: 'Rota não encontrada.',
  methodNotAllowed: 'Método não permitido para esta rota.',
  eventNotFound: 'Evento não encontrado.',
  eventStillPending:
    'A entrega deste evento ainda está em andamento; reenvie-o depois que ela for concluída ou descartada.',
  paymentIdInvalid: 'paymentId must be a UUID',
  malformedJson: 'Corpo da requisição não é um JSON válido.',
  bodyNotObject: 'Corpo da requisição deve ser um objeto JSON.',
  unsupportedMediaType: 'Content-Type deve ser application/json.',
  payloadTooLarge: 'Corpo da requisição excede o tamanho máximo permitido.',
  idempotencyKeyReused: 'Idempotency-Key já utilizada com outro corpo de requisição.',
  refundAmountInvalid: 'O valor do reembolso deve ser um número maior que zero, com no máximo duas casas decimais.',
  refundReasonInvalid: `O motivo do reembolso deve ser um texto de no máximo ${MAX_REFUND_REASON_CHARS} caracteres.`,
  refundAboveLeft: (leftCents: number) =>
    `O valor do reembolso excede o disponível para reembolsar neste pagamento: ${formatBrl(leftCents / 100)}.`,
  refundNotApproved: 'Só é possível reembolsar um pagamento aprovado.',
  refundWindowClosed: 'O prazo de 90 dias para reembolsar este pagamento terminou.',
  refundLimitReached: `Este pagamento já tem ${MAX_MERCHANT_REFUNDS} reembolsos, o máximo permitido.`,
  refundNotFound: 'Reembolso não encontrado.',
  refundIdInvalid: 'refundId must be a UUID',
  cancelNotPending: 'Só é possível cancelar um pagamento pendente.',
  refundDisputeOpen:
    'Este pagamento tem uma contestação (MED) aberta: o valor está bloqueado pelo PSP e não pode ser reembolsado até a decisão.',
  disputeDefenseInvalid: `A defesa deve ser um texto de 1 a ${MAX_DISPUTE_DEFENSE_CHARS} caracteres.`,
  disputeNotOpen: 'Este pagamento não tem uma contestação aberta.',
  disputeDeadlinePassed: 'O prazo para responder a esta contestação terminou.',
  disputeDefended: 'A defesa desta contestação já foi enviada; o PSP aceita uma só.',
  idempotencyKeyInvalid: 'Idempotency-Key deve ter entre 1 e 255 caracteres.',
  rateLimited: 'Limite de requisições excedido. Tente novamente mais tarde.',
  /** Too many refused tokens from one client address: it waits Retry-After seconds. */
  authThrottled: 'Muitas tentativas com token inválido. Tente novamente mais tarde.',
  dateInvalid: (name: string) => `${name} deve ser uma data no formato AAAA-MM-DD.`,
  dateOutOfRange: (name: string) => `${name} deve ser um dia entre 16/11/2020 e hoje (horário de Brasília).`,
  dateRangeReversed: 'from deve ser anterior ou igual a to.',
  internal: 'Erro interno. Tente novamente mais tarde.',
  unavailable: 'Serviço temporariamente indisponível. Tente novamente mais tarde.',
} as const;

/**
 * Answers to requests Node's HTTP parser refuses before the API sees them (the server's
 * clientError event writes them), in the same error body as every other answer.
 */
export const ParserErrorMessages = {
  malformed: 'Requisição HTTP malformada.',
  methodUnknown: 'Método HTTP não suportado.',
  headersTooLarge: 'Cabeçalhos da requisição excedem o tamanho máximo permitido.',
  timeout: 'Tempo esgotado aguardando a requisição completa.',
} as const;

/** class-validator style messages for the list's query parameters. */
export const QueryMessages = {
  notInteger: (name: string) => `${name} must be an integer number`,
  tooSmall: (name: string, min: number) => `${name} must not be less than ${min}`,
  tooLarge: (name: string, max: number) => `${name} must not be greater than ${max}`,
  notOneOf: (name: string, values: readonly string[]) =>
    `${name} must be one of the following values: ${values.join(', ')}`,
} as const;

/** Answers of the admin and sandbox commands (operators read them; English like the CLI). */
export const AdminMessages = {
  transitionRefused: (from: string, to: string) =>
    `transition ${from} -> ${to} is not allowed by the payment state machine`,
  statusNotAdmin: (to: string, allowed: readonly string[]) =>
    `${to} is reached only through the payment lifecycle (PSP, expiry, review); the admin command drives: ${allowed.join(', ')}`,
  transitionContended: 'the payment kept changing while the transition was tried; try again',
  storeNotFound: (storeId: string) => `store not found: ${storeId}`,
  tokenNotFound: 'token not found',
  webhookSecretsUnreadable: (storeId: string, kids: string) =>
    `no webhook secret of store ${storeId} opens (sealed under key ${kids}): ` +
    `admin store rotate-secret ${storeId} issues a new one`,
} as const;

/**
 * Refusals of the sandbox actions (pay, review, clear, reject). Merchants meet them on the public
 * sandbox routes, so they are Portuguese like the API's; the admin CLI prints the same ones.
 */
export const SandboxMessages = {
  chargeExpired: 'A cobrança deste pagamento expirou; ela não pode mais ser paga.',
  chargeRemoved: 'A cobrança deste pagamento foi cancelada; ela não pode mais ser paga.',
  lateInvalid: 'late must be a boolean',
  dropCallbackInvalid: 'dropCallback must be a boolean',
  chargeMissing: 'A cobrança deste pagamento ainda não foi criada no PSP sandbox; tente novamente em instantes.',
  chargePaidOtherwise:
    'A cobrança deste pagamento já foi paga por outra ação do sandbox (outro valor, ou retida para análise).',
  nothingHeld: 'Não há Pix deste pagamento em análise no PSP sandbox; use a ação review antes.',
  analysisDecided: 'A análise do Pix deste pagamento já foi concluída com outro resultado.',
  callbackFailed:
    'O PSP sandbox registrou o Pix, mas não conseguiu avisar a plataforma; o aviso será repetido. Tente novamente.',
  amountInvalid: 'amount must be a positive number with at most two decimal places',
  natureInvalid: 'nature must be one of the following values: med_fraud, med_operational',
  nothingPaid: 'O PSP sandbox ainda não recebeu um Pix deste pagamento; use a ação pay antes.',
  returnAbovePix: 'O valor pedido é maior que o do Pix deste pagamento.',
  nothingLeftToReturn: 'O Pix deste pagamento já foi devolvido por inteiro.',
} as const;

/** Refusals of the webhook admin commands. */
export const WebhookAdminMessages = {
  deliveryNotFound: (eventId: string) => `no webhook delivery for event ${eventId}`,
  deliveryStillPending: (eventId: string) =>
    `the delivery of event ${eventId} is still being retried; replay it once it is delivered or dead-lettered`,
} as const;

/**
 * What a domain error means to a reader: the HTTP status and the spec's message the gateway answers
 * with, which the admin CLI prints too. Services raise only the codes; this table is the edges' own.
 */
export const DomainErrorAnswers: Record<
  DomainErrorCode,
  (params: Record<string, string>) => { status: number; message: string }
> = {
  payment_not_found: () => ({ status: 404, message: ErrorMessages.paymentNotFound }),
  idempotency_key_reused: () => ({ status: 409, message: ErrorMessages.idempotencyKeyReused }),
  transition_not_allowed: (p) => ({ status: 409, message: AdminMessages.transitionRefused(`${p.from}`, `${p.to}`) }),
  status_not_admin: (p) => ({ status: 400, message: AdminMessages.statusNotAdmin(`${p.to}`, INTERNAL_STATUSES) }),
  transition_contended: () => ({ status: 409, message: AdminMessages.transitionContended }),
  event_not_found: () => ({ status: 404, message: ErrorMessages.eventNotFound }),
  event_still_pending: () => ({ status: 409, message: ErrorMessages.eventStillPending }),
  delivery_not_found: (p) => ({ status: 404, message: WebhookAdminMessages.deliveryNotFound(`${p.eventId}`) }),
  delivery_still_pending: (p) => ({ status: 409, message: WebhookAdminMessages.deliveryStillPending(`${p.eventId}`) }),
  store_not_found: (p) => ({ status: 404, message: AdminMessages.storeNotFound(`${p.storeId}`) }),
  token_not_found: () => ({ status: 404, message: AdminMessages.tokenNotFound }),
  webhook_secrets_unreadable: (p) => ({
    status: 409,
    message: AdminMessages.webhookSecretsUnreadable(`${p.storeId}`, `${p.kids}`),
  }),
  charge_not_found: () => ({ status: 404, message: ErrorMessages.paymentNotFound }),
  charge_missing: () => ({ status: 409, message: SandboxMessages.chargeMissing }),
  charge_expired: () => ({ status: 409, message: SandboxMessages.chargeExpired }),
  charge_paid_otherwise: () => ({ status: 409, message: SandboxMessages.chargePaidOtherwise }),
  nothing_held: () => ({ status: 409, message: SandboxMessages.nothingHeld }),
  charge_removed: () => ({ status: 409, message: SandboxMessages.chargeRemoved }),
  refund_not_approved: () => ({ status: 409, message: ErrorMessages.refundNotApproved }),
  refund_window_closed: () => ({ status: 409, message: ErrorMessages.refundWindowClosed }),
  refund_above_left: (p) => ({ status: 400, message: ErrorMessages.refundAboveLeft(Number(p.leftCents)) }),
  refund_limit_reached: () => ({ status: 409, message: ErrorMessages.refundLimitReached }),
  refund_not_found: () => ({ status: 404, message: ErrorMessages.refundNotFound }),
  cancel_not_pending: () => ({ status: 409, message: ErrorMessages.cancelNotPending }),
  refund_dispute_open: () => ({ status: 409, message: ErrorMessages.refundDisputeOpen }),
  dispute_not_open: () => ({ status: 409, message: ErrorMessages.disputeNotOpen }),
  dispute_deadline_passed: () => ({ status: 409, message: ErrorMessages.disputeDeadlinePassed }),
  dispute_defended: () => ({ status: 409, message: ErrorMessages.disputeDefended }),
  analysis_decided: () => ({ status: 409, message: SandboxMessages.analysisDecided }),
  nothing_paid: () => ({ status: 409, message: SandboxMessages.nothingPaid }),
  return_above_pix: () => ({ status: 409, message: SandboxMessages.returnAbovePix }),
  nothing_left_to_return: () => ({ status: 409, message: SandboxMessages.nothingLeftToReturn }),
  callback_failed: () => ({ status: 503, message: SandboxMessages.callbackFailed }),
};
