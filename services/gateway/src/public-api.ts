import { randomUUID } from 'node:crypto';
import express, { type Express, type Request, type RequestHandler, type Router } from 'express';
import typeis from 'type-is';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import {
  BalanceListQueryParamsSchema,
  checkRequest,
  CreatePaymentBodySchema,
  CreateRefundBodySchema,
  DispatcherRpc,
  DisputeDefenseBodySchema,
  DomainError,
  ErrorMessages,
  EventListQueryParamsSchema,
  isDay,
  isEventId,
  isStatementDay,
  isPaymentId,
  ListQueryParamsSchema,
  modeScope,
  PaymentsRpc,
  SandboxMessages,
  SandboxMedBodySchema,
  SandboxPayBodySchema,
  SandboxRpc,
  type Payment,
  type RpcDefinition,
  type RpcReply,
  type RpcRequest,
} from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { AuthedLocals } from './auth';
import { methodNotAllowed, sendError } from './http-errors';
import type { PaymentViews } from './payment-views';
import { medWith, payWith, sandboxAct } from './sandbox-actions';
import { isValidIdempotencyKey, type IdempotencyKeys, type IdempotentRequest } from './storage';

/**
 * The public API (spec 4), each operation declared once: the routers (groupRouter below) and the
 * OpenAPI document (openapi.ts) are both built from this table, so neither can serve or describe
 * an operation the other lacks.
 */

type Json = Record<string, unknown>;

/** The spec's two path forms: every operation is served, and documented, under both. */
export const PATH_FORMS = [
  {
    prefix: '/api-public',
    operationSuffix: '',
    tag: { name: 'reference form', description: 'The payments API under /api-public' },
  },
  {
    prefix: '/public-api/v1',
    operationSuffix: 'V1',
    tag: { name: 'guide form (v1)', description: 'The same operations under /public-api/v1' },
  },
] as const;

/** What an operation answers instead of calling its RPC: a status and the spec's message. */
class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
  ) {}
}

/** What the operations reach: the services over NATS, payments' read model, and the gateway's own Idempotency-Keys. */
export interface Backends {
  nc: NatsConnection;
  rpcTimeoutMs: number;
  idempotencyKeys: Pick<IdempotencyKeys, 'claim'>;
  views: Pick<PaymentViews, 'read'>;
}

/**
 * What an operation's answer gets: the request, the token's store, its RPC bound to them, and its
 * declared body and query checked by their schemas (libs/contracts requests.ts). The answer asks
 * for them when its order of checks says (a path id is looked at before the body).
 */
interface Call<D extends RpcDefinition, B extends z.ZodType, Q extends z.ZodType> {
  req: Request;
  /** The token's store and mode, as every store-scoped RPC takes them (a token sees its own mode only). */
  scope: { storeId: string; livemode: boolean };
  idempotencyKeys: Backends['idempotencyKeys'];
  views: Backends['views'];
  call: (request: RpcRequest<D>) => Promise<RpcReply<D>>;
  /** The RPC as a sandbox action on the store's payment `id` (sandboxAct: the store must own it). */
  act: (id: string, request: (payment: Payment) => RpcRequest<D>) => Promise<RpcReply<D>>;
  /** The body as its schema makes it, or the 400 of its first bad field. */
  body: () => z.output<B> | Refusal;
  /** The query as its schema makes it, or the 400 of its first bad parameter. */
  query: () => z.output<Q> | Refusal;
}

interface Declaration<
  D extends RpcDefinition,
  B extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodObject = z.ZodObject,
> {
  method: 'get' | 'post';
  /** Under its group's path, in express's form (`/:id`); the document writes `{id}`. */
  path: string;
  /** The reference form's; the guide form's adds its operationSuffix. */
  operationId: string;
  /** Its tag in the document, when not its group's. */
  tag?: { name: string; description: string };
  summary: string;
  description?: string;
  /** OpenAPI parameter objects: path and header. */
  parameters?: Json[];
  /** The query string's parameters, each documented from its field of the schema. */
  query?: Q;
  /**
   * A JSON body: a required one must say it is JSON, an optional one only when it is there. Its
   * schema is an OpenAPI component.
   */
  body?: { required: boolean; schema: B };
  /** The RPC that answers: its reply schema is the 200's. */
  rpc: D;
  /** What the 200 is. */
  ok: string;
  /** The statuses it answers besides 200 and COMMON_ERRORS, each with its messages. */
  errors: Record<number, string>;
  answer: (call: Call<D, B, Q>) => Promise<RpcReply<D> | Refusal> | Refusal;
}

export type Operation = Omit<Declaration<RpcDefinition, z.ZodType, z.ZodObject>, 'answer'> & {
  handler: (backends: Backends) => RequestHandler;
};

export interface OperationGroup {
  /** Under each path form's prefix. */
  path: string;
  /** Its operations' tag in the document; without one they take their path form's. */
  tag?: { name: string; description: string };
  operations: Operation[];
}

/** The value a request schema makes of `input`, or the 400 with the message of its first refusal. */
function checked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> | Refusal {
  const result = checkRequest(schema, input);
  return result.ok ? result.value : new Refusal(400, result.message);
}

/** An answer asked for a body or query its operation does not declare (and so does not document). */
function undeclared(operationId: string, what: 'body' | 'query'): never {
  throw new Error(`${operationId} declares no ${what}`);
}

function operation<D extends RpcDefinition, B extends z.ZodType = z.ZodUndefined, Q extends z.ZodObject = z.ZodObject>({
  answer,
  ...declared
}: Declaration<D, B, Q>): Operation {
  return {
    ...declared,
    handler:
      ({ nc, rpcTimeoutMs, idempotencyKeys, views }) =>
      async (req, res) => {
        const { storeId, livemode } = res.locals as AuthedLocals;
        const scope = { storeId, livemode };
        const answered = await answer({
          req,
          scope,
          idempotencyKeys,
          views,
          call: (request) => callRpc(nc, declared.rpc, request, rpcTimeoutMs),
          act: (id, request) => sandboxAct({ nc, rpcTimeoutMs, views }, scope, id, declared.rpc, request),
          body: () => checked(declared.body?.schema ?? undeclared(declared.operationId, 'body'), req.body),
          query: () => checked(declared.query ?? undeclared(declared.operationId, 'query'), req.query),
        });
        if (answered instanceof Refusal) return sendError(res, answered.status, answered.message);
        res.status(200).json(answered);
      },
  };
}

/** Every operation is behind requireStore and the error handler, so each may answer these. */
export const COMMON_ERRORS: Record<number, string> = {
  401: `\`${ErrorMessages.bearerMissing}\` or \`${ErrorMessages.tokenInvalid}\``,
  403: `\`${ErrorMessages.storeInactive}\``,
  429: 'Too many requests for this token',
  503: 'A backend did not answer in time; retry later',
  500: 'Unexpected error; retry later',
};

const QUERY_INVALID = 'A query parameter out of range or malformed (class-validator style message)';
const PAYMENT_NOT_FOUND = `\`${ErrorMessages.paymentNotFound}\` (unknown id, or another store's payment)`;
const paymentNotFound = new Refusal(404, ErrorMessages.paymentNotFound);
const refundNotFound = new Refusal(404, ErrorMessages.refundNotFound);
const PAYMENT_ID = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };

const IDEMPOTENCY_KEY = (what: string) => ({
  name: 'Idempotency-Key',
  in: 'header',
  description:
    `Optional, 1 to 255 characters. Within 24 hours the same key with the same body returns the same ${what} ` +
    `(no second ${what}, no second webhook); the same key with another body is 409. Keys are per operation: ` +
    'the same key on a create and on a refund names two things.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
});

/**
 * The Idempotency-Key's id for the request, if one is given (undefined: none given): the same key
 * and request get the same id, another request with the key is refused. Keys are per store and
 * mode: the same key sent with a test token and a live token names two payments.
 */
async function claimedId(
  req: Request,
  scope: Call<RpcDefinition, z.ZodType, z.ZodType>['scope'],
  idempotencyKeys: Backends['idempotencyKeys'],
  request: IdempotentRequest,
): Promise<string | undefined | Refusal> {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!isValidIdempotencyKey(key)) return new Refusal(400, ErrorMessages.idempotencyKeyInvalid);
  const claim = await idempotencyKeys.claim(modeScope(scope.storeId, scope.livemode), key, request);
  if (!claim.ok) throw new DomainError('idempotency_key_reused');
  return claim.id;
}

/** Create: the first invalid field refused, then the Idempotency-Key's payment id claimed, if one is given. */
async function createPayment({
  req,
  scope,
  idempotencyKeys,
  call,
  body,
}: Call<typeof PaymentsRpc.create, typeof CreatePaymentBodySchema, z.ZodObject>) {
  const input = body();
  if (input instanceof Refusal) return input;
  const paymentId = await claimedId(req, scope, idempotencyKeys, { operation: 'create', input });
  if (paymentId instanceof Refusal) return paymentId;
  return call({ ...scope, input, isPublic: true, paymentId });
}

/** Refund: the payment id, then the body, then the Idempotency-Key's refund id (a new one without a key). */
async function createRefund({
  req,
  scope,
  idempotencyKeys,
  call,
  body,
}: Call<typeof PaymentsRpc.refundsCreate, typeof CreateRefundBodySchema, z.ZodObject>) {
  const { id } = req.params;
  if (!isPaymentId(id)) return paymentNotFound;
  const input = body();
  if (input instanceof Refusal) return input;
  const claimed = await claimedId(req, scope, idempotencyKeys, { operation: 'refund', paymentId: id, input });
  if (claimed instanceof Refusal) return claimed;
  return call({ ...scope, paymentId: id, refundId: claimed ?? randomUUID(), input });
}

const payments: OperationGroup = {
  path: 'payments',
  operations: [
    operation({
      method: 'get',
      path: '',
      operationId: 'listPayments',
      summary: 'List the payments of the store, newest first',
      query: ListQueryParamsSchema,
      rpc: PaymentsRpc.list,
      ok: 'A page of payments (createdAt descending, then id descending)',
      errors: { 400: QUERY_INVALID },
      answer: ({ scope, call, query }) => {
        const checkedQuery = query();
        return checkedQuery instanceof Refusal ? checkedQuery : call({ ...scope, query: checkedQuery });
      },
    }),
    operation({
      method: 'post',
      path: '',
      operationId: 'createPayment',
      summary: 'Create a dynamic Pix payment',
      parameters: [IDEMPOTENCY_KEY('payment')],
      body: { required: true, schema: CreatePaymentBodySchema },
      rpc: PaymentsRpc.create,
      ok: 'The payment (status pending, isPublic true)',
      errors: {
        400:
          'An invalid field (the first of amount, email, observation, webhookUrl, then expiresIn: ' +
          `\`${ErrorMessages.expiresInInvalid}\`), malformed JSON, a content type other than application/json, or an ` +
          'invalid Idempotency-Key',
        409: `\`${ErrorMessages.idempotencyKeyReused}\``,
        413: 'Body over 64 KB',
      },
      answer: createPayment,
    }),
    operation({
      method: 'get',
      path: '/:id',
      operationId: 'getPayment',
      summary: 'Read one payment of the store',
      parameters: [PAYMENT_ID],
      rpc: PaymentsRpc.get,
      ok: 'The payment',
      errors: { 404: PAYMENT_NOT_FOUND },
      // Its view when payments' read model has one (docs/decisions/payment-read-model.md), else payments reads it.
      answer: async ({ req, scope, views, call }) => {
        const { id } = req.params;
        if (!isPaymentId(id)) return paymentNotFound;
        return (await views.read(scope, id)) ?? call({ ...scope, id });
      },
    }),
    operation({
      method: 'post',
      path: '/:id/cancel',
      operationId: 'cancelPayment',
      summary: 'Cancel a pending payment: not_approved at once, its charge removed at the PSP',
      description:
        'The payment becomes `not_approved` and `payment.status_changed` is sent (previousStatus `pending`); the ' +
        'charge is then removed at the PSP (retried while the PSP is away), so it can no longer be paid. A Pix that ' +
        'lands after the cancel is returned to its payer automatically (a `platform` refund).',
      parameters: [PAYMENT_ID],
      rpc: PaymentsRpc.cancel,
      ok: 'The payment, now not_approved',
      errors: { 404: PAYMENT_NOT_FOUND, 409: `\`${ErrorMessages.cancelNotPending}\`` },
      answer: ({ req, scope, call }) => {
        const { id } = req.params;
        return isPaymentId(id) ? call({ ...scope, id }) : paymentNotFound;
      },
    }),
  ],
};

const REFUND_ID = {
  name: 'refundId',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};
const REFUND_NOT_FOUND = `\`${ErrorMessages.refundNotFound}\` (an unknown refund of the payment)`;

/**
 * A payment's refunds (API Pix devoluções): ask for one, list them, read one. The payment must be
 * the store's (404 otherwise, the same answer as an unknown one).
 */
export const REFUNDS_TAG = {
  name: 'refunds',
  description:
    'Money going back to the payer of an approved payment (API Pix devolução): all or part of it, several ' +
    'times, within 90 days of the payment. Both path forms.',
};

const refundOperations: Operation[] = [
  operation({
    method: 'post',
    path: '/:id/refunds',
    operationId: 'createRefund',
    tag: REFUNDS_TAG,
    summary: 'Refund all or part of an approved payment',
    description:
      'The refund starts `pending` and is sent to the PSP once; `refund.created`, then `refund.succeeded` or ' +
      "`refund.failed`, go to the payment's webhookUrl. The refunds of a payment never exceed what was paid: of " +
      'two that race for the same money, one is taken and the other refused. `refundedAmount` on the payment is ' +
      'the sum of its succeeded refunds.',
    parameters: [PAYMENT_ID, IDEMPOTENCY_KEY('refund')],
    body: { required: false, schema: CreateRefundBodySchema },
    rpc: PaymentsRpc.refundsCreate,
    ok: 'The refund, pending',
    errors: {
      400:
        `\`${ErrorMessages.refundAmountInvalid}\`, \`${ErrorMessages.refundReasonInvalid}\`, an amount above what is ` +
        `left (\`${ErrorMessages.refundAboveLeft(1250)}\`, with what is left), a body that is not a JSON object, ` +
        'or an invalid Idempotency-Key',
      404: PAYMENT_NOT_FOUND,
      409:
        `\`${ErrorMessages.refundNotApproved}\`, \`${ErrorMessages.refundWindowClosed}\`, ` +
        `\`${ErrorMessages.refundLimitReached}\`, \`${ErrorMessages.refundDisputeOpen}\` or ` +
        `\`${ErrorMessages.idempotencyKeyReused}\``,
      413: 'Body over 64 KB',
    },
    answer: createRefund,
  }),
  operation({
    method: 'get',
    path: '/:id/refunds',
    operationId: 'listRefunds',
    tag: REFUNDS_TAG,
    summary: "The payment's refunds, newest first",
    parameters: [PAYMENT_ID],
    rpc: PaymentsRpc.refundsList,
    ok: 'Every refund of the payment (merchant and platform ones)',
    errors: { 404: PAYMENT_NOT_FOUND },
    answer: ({ req, scope, call }) => {
      const { id } = req.params;
      return isPaymentId(id) ? call({ ...scope, paymentId: id }) : paymentNotFound;
    },
  }),
  operation({
    method: 'get',
    path: '/:id/refunds/:refundId',
    operationId: 'getRefund',
    tag: REFUNDS_TAG,
    summary: 'One refund of the payment',
    parameters: [PAYMENT_ID, REFUND_ID],
    rpc: PaymentsRpc.refundsGet,
    ok: 'The refund',
    errors: { 404: `${PAYMENT_NOT_FOUND}, or ${REFUND_NOT_FOUND}` },
    answer: ({ req, scope, call }) => {
      const { id, refundId } = req.params;
      if (!isPaymentId(id)) return paymentNotFound;
      return isPaymentId(refundId) ? call({ ...scope, paymentId: id, refundId }) : refundNotFound;
    },
  }),
];

/** A payment's dispute (MED): the merchant's defence, forwarded to the PSP. */
export const DISPUTES_TAG = {
  name: 'disputes',
  description:
    "A payer's fraud claim (MED) against the Pix that paid a payment, as the PSP reports it: the payment shows " +
    '`dispute` (only when it has one), `payment.dispute_opened`, `payment.dispute_reminder` (48, 24 and 6 hours ' +
    'before the deadline) and `payment.dispute_closed` go to its webhookUrl, and the merchant may answer once ' +
    'before the deadline. A refund is refused while a dispute is open. Both path forms.',
};

const disputeOperations: Operation[] = [
  operation({
    method: 'post',
    path: '/:id/dispute/defense',
    operationId: 'defendDispute',
    tag: DISPUTES_TAG,
    summary: "Answer the payment's open dispute with a defence, forwarded to the PSP",
    description:
      'The defence is recorded on the payment (`dispute.defense`) and sent to the PSP once. The same text again ' +
      'answers the payment as it is (nothing is sent twice); another text after a defence is refused. The PSP ' +
      'then decides: `payment.dispute_closed` tells its decision.',
    parameters: [PAYMENT_ID],
    body: { required: true, schema: DisputeDefenseBodySchema },
    rpc: PaymentsRpc.disputeDefense,
    ok: 'The payment, its dispute with the defence',
    errors: {
      400:
        `\`${ErrorMessages.disputeDefenseInvalid}\`, a body that is not a JSON object, or a content type other ` +
        'than application/json',
      404: PAYMENT_NOT_FOUND,
      409:
        `\`${ErrorMessages.disputeNotOpen}\`, \`${ErrorMessages.disputeDeadlinePassed}\` or ` +
        `\`${ErrorMessages.disputeDefended}\``,
      413: 'Body over 64 KB',
    },
    answer: ({ req, scope, call, body }) => {
      const { id } = req.params;
      if (!isPaymentId(id)) return paymentNotFound;
      const input = body();
      return input instanceof Refusal ? input : call({ ...scope, paymentId: id, input });
    },
  }),
];

const SANDBOX_ID = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
const SANDBOX_DID = 'What the sandbox PSP did';

/** Review, clear and reject: the action on the payment, with no body. */
function analysis(name: 'Review' | 'Clear' | 'Reject', summary: string, conflict: string): Operation {
  const action = name.toLowerCase() as 'review' | 'clear' | 'reject';
  return operation({
    method: 'post',
    path: `/:id/${action}`,
    operationId: `sandbox${name}`,
    summary,
    parameters: [SANDBOX_ID],
    rpc: SandboxRpc[action],
    ok: SANDBOX_DID,
    errors: { 404: PAYMENT_NOT_FOUND, 409: conflict },
    answer: ({ req, act }) => {
      const { id } = req.params;
      return isPaymentId(id) ? act(id, () => ({ paymentId: id })) : paymentNotFound;
    },
  });
}

/**
 * The sandbox PSP over the public API, for a merchant's own code to drive a payment as a customer
 * would: pay (optionally another amount), review (paid and held for analysis), clear and reject
 * (the analysis ends), a refund the PSP will fail, a MED return, as the admin CLI's `sandbox` commands do.
 */
const sandbox: OperationGroup = {
  path: 'sandbox/payments',
  tag: {
    name: 'sandbox',
    description:
      'Drive a test payment as its customer and the PSP would, to test an integration end to end. These ' +
      'routes answer test tokens only: for a live token they are unknown routes (404), since a live payment ' +
      "is paid by the payer's bank alone.",
  },
  operations: [
    operation({
      method: 'post',
      path: '/:id/pay',
      operationId: 'sandboxPay',
      summary: 'The customer pays the payment (sandbox only)',
      parameters: [SANDBOX_ID],
      description:
        'Pays the charge as a customer would; the PSP then calls the platform back and the payment becomes ' +
        '`approved` (or `review` when `amount` differs). Idempotent: a retry with the same body answers the same ' +
        'Pix (same endToEndId), except with `late`: then every call is a new Pix, paid even when the charge can no ' +
        'longer be paid (paid already, expired or cancelled), to play a Pix against a cancel or an expiry; the ' +
        'platform returns such a Pix to its payer (a `platform` refund). With `dropCallback` the PSP receives the ' +
        'Pix but never calls the platform back: the payment changes only when the platform reconciles with the PSP ' +
        '(within about a minute, RECONCILE_INTERVAL), or reads the charge before it expires.',
      body: { required: false, schema: SandboxPayBodySchema },
      rpc: SandboxRpc.pay,
      ok: SANDBOX_DID,
      errors: {
        400:
          `\`${SandboxMessages.amountInvalid}\`, \`${SandboxMessages.lateInvalid}\`, ` +
          `\`${SandboxMessages.dropCallbackInvalid}\`, a body that is not a JSON ` +
          'object, or a content type other than application/json',
        404: PAYMENT_NOT_FOUND,
        409:
          `The charge cannot be paid so: \`${SandboxMessages.chargeExpired}\`, \`${SandboxMessages.chargeRemoved}\`, ` +
          `\`${SandboxMessages.chargePaidOtherwise}\` or \`${SandboxMessages.chargeMissing}\``,
      },
      answer: ({ req, act, body }) => {
        const { id } = req.params;
        if (!isPaymentId(id)) return paymentNotFound;
        const options = body();
        return options instanceof Refusal ? options : act(id, payWith(options));
      },
    }),
    analysis(
      'Review',
      'The customer pays and the PSP holds the Pix for analysis (sandbox only)',
      `\`${SandboxMessages.chargeExpired}\` or \`${SandboxMessages.chargePaidOtherwise}\``,
    ),
    analysis(
      'Clear',
      'The analysis of the held Pix clears it: the payment is approved (sandbox only)',
      `\`${SandboxMessages.nothingHeld}\` or \`${SandboxMessages.analysisDecided}\``,
    ),
    analysis(
      'Reject',
      'The analysis of the held Pix rejects it: the payment is refunded, not approved (sandbox only)',
      `\`${SandboxMessages.nothingHeld}\` or \`${SandboxMessages.analysisDecided}\``,
    ),
    operation({
      method: 'post',
      path: '/:id/fail-next-refund',
      operationId: 'sandboxFailNextRefund',
      summary: 'The PSP settles the next refund of the payment as not done (sandbox only)',
      description:
        'The next refund of this payment (asked after this call) is settled by the sandbox PSP as `NAO_REALIZADO` ' +
        'with a motivo: it becomes `failed` with that motivo as its failureReason, and `refund.failed` is sent. ' +
        'Without it, every sandbox refund succeeds within a second.',
      parameters: [SANDBOX_ID],
      rpc: SandboxRpc.failNextRefund,
      ok: SANDBOX_DID,
      errors: { 404: PAYMENT_NOT_FOUND, 409: `\`${SandboxMessages.chargeMissing}\`` },
      answer: ({ req, act }) => {
        const { id } = req.params;
        return isPaymentId(id) ? act(id, () => ({ paymentId: id })) : paymentNotFound;
      },
    }),
    operation({
      method: 'post',
      path: '/:id/med',
      operationId: 'sandboxMed',
      summary: "The PSP returns the payment's Pix on its own: a MED return (sandbox only)",
      description:
        "The PSP returns the Pix that paid the payment, as it does when the payer's fraud claim is upheld under " +
        "BACEN's Mecanismo Especial de Devolução: `amount` (all that is left of the Pix when absent; up to the Pix's " +
        'amount, even beyond what is left to refund, as a real MED return can race a refund) with `nature` ' +
        '`med_fraud` (the default) or `med_operational`. A moment later the PSP tells the platform, and the payment ' +
        'gains a refund of origin `psp` and that nature, counted in `refundedAmount`, announced by `refund.created` ' +
        'then `refund.succeeded`. Each call is a new return.',
      parameters: [SANDBOX_ID],
      body: { required: false, schema: SandboxMedBodySchema },
      rpc: SandboxRpc.med,
      ok: SANDBOX_DID,
      errors: {
        400:
          `\`${SandboxMessages.amountInvalid}\`, \`${SandboxMessages.natureInvalid}\`, a body that is not a JSON ` +
          'object, or a content type other than application/json',
        404: PAYMENT_NOT_FOUND,
        409:
          `\`${SandboxMessages.nothingPaid}\`, \`${SandboxMessages.returnAbovePix}\`, ` +
          `\`${SandboxMessages.nothingLeftToReturn}\` or \`${SandboxMessages.chargeMissing}\``,
      },
      answer: ({ req, act, body }) => {
        const { id } = req.params;
        if (!isPaymentId(id)) return paymentNotFound;
        const options = body();
        return options instanceof Refusal ? options : act(id, medWith(options));
      },
    }),
  ],
};

/** The Events API's tag, which the document's webhooks share. */
export const EVENTS_TAG = {
  name: 'events',
  description:
    'The webhook events of the store (payments created with a webhookUrl), as delivered, with their ' +
    'delivery state; both path forms (/api-public/events and /public-api/v1/events).',
};

const EVENT_ID = {
  name: 'eventId',
  in: 'path',
  required: true,
  description: 'The event id (evt_…), the webhook-id of its deliveries',
  schema: { type: 'string' },
};
const EVENT_NOT_FOUND = `\`${ErrorMessages.eventNotFound}\` (unknown id, or another store's event)`;
const eventNotFound = new Refusal(404, ErrorMessages.eventNotFound);

/**
 * The Events API: the store's webhook events from the dispatcher's delivery log, one event with its
 * attempts, and a redelivery. The store is always the token's; an id that is not an event id is
 * 404 without asking.
 */
const events: OperationGroup = {
  path: 'events',
  tag: EVENTS_TAG,
  operations: [
    operation({
      method: 'get',
      path: '',
      operationId: 'listEvents',
      summary: "The store's webhook events, newest first, with their delivery state",
      query: EventListQueryParamsSchema,
      rpc: DispatcherRpc.eventsList,
      ok: 'A page of events (recorded descending, then id descending)',
      errors: { 400: QUERY_INVALID },
      answer: ({ scope, call, query }) => {
        const checkedQuery = query();
        return checkedQuery instanceof Refusal ? checkedQuery : call({ ...scope, query: checkedQuery });
      },
    }),
    operation({
      method: 'get',
      path: '/:eventId',
      operationId: 'getEvent',
      summary: 'One event of the store with every delivery attempt',
      parameters: [EVENT_ID],
      rpc: DispatcherRpc.eventsGet,
      ok: 'The event and its attempts',
      errors: { 404: EVENT_NOT_FOUND },
      answer: ({ req, scope, call }) => {
        const { eventId } = req.params;
        return isEventId(eventId) ? call({ ...scope, eventId }) : eventNotFound;
      },
    }),
    operation({
      method: 'post',
      path: '/:eventId/redeliver',
      operationId: 'redeliverEvent',
      summary: 'Deliver a delivered or dead event again, as a new run with the same webhook-id',
      parameters: [EVENT_ID],
      rpc: DispatcherRpc.eventsRedeliver,
      ok: 'The new run, pending',
      errors: { 404: EVENT_NOT_FOUND, 409: `\`${ErrorMessages.eventStillPending}\`` },
      answer: ({ req, scope, call }) => {
        const { eventId } = req.params;
        return isEventId(eventId) ? call({ ...scope, eventId }) : eventNotFound;
      },
    }),
  ],
};

/** The store's money: its balance transactions and each day's statement. */
export const STATEMENT_TAG = {
  name: 'statement',
  description:
    "The store's money in the token's mode: every movement as a balance transaction (a Pix in, a refund, a MED " +
    'return, a late Pix in and back out), written with the change that made it, and the statement of a day in ' +
    'America/Sao_Paulo. Both path forms.',
};

const balanceTransactions: OperationGroup = {
  path: 'balance-transactions',
  tag: STATEMENT_TAG,
  operations: [
    operation({
      method: 'get',
      path: '',
      operationId: 'listBalanceTransactions',
      summary: "The store's balance transactions, newest first, by day range and type",
      description:
        'Days are America/Sao_Paulo and inclusive; without `to`, until today; without `from`, the 31 days up to ' +
        '`to`. Amounts are signed BRL: money in positive, money out negative.',
      query: BalanceListQueryParamsSchema,
      rpc: PaymentsRpc.balanceList,
      ok: 'A page of balance transactions (createdAt descending, then id descending)',
      errors: {
        400:
          `${QUERY_INVALID}; \`${ErrorMessages.dateInvalid('from')}\`, \`${ErrorMessages.dateOutOfRange('from')}\` ` +
          `(and the same for to) or \`${ErrorMessages.dateRangeReversed}\``,
      },
      answer: ({ scope, call, query }) => {
        const checkedQuery = query();
        return checkedQuery instanceof Refusal ? checkedQuery : call({ ...scope, query: checkedQuery });
      },
    }),
  ],
};

const statements: OperationGroup = {
  path: 'statements',
  tag: STATEMENT_TAG,
  operations: [
    operation({
      method: 'get',
      path: '/:date',
      operationId: 'getStatement',
      summary: "The store's statement of a day (America/Sao_Paulo)",
      description:
        'What came in (`received`: Pix paid and late Pix), went back (`refunded`: refunds that succeeded, ' +
        '`returnedByMed`: returns the PSP made under MED), is at risk in open disputes (`atRisk`), and `net` ' +
        '(received − refunded − returnedByMed), with counts. The sums equal those of the balance transactions of ' +
        'the day.',
      parameters: [
        {
          name: 'date',
          in: 'path',
          required: true,
          description: 'AAAA-MM-DD, from 2020-11-16 (Pix opened) to today in America/Sao_Paulo',
          schema: { type: 'string', format: 'date' },
        },
      ],
      rpc: PaymentsRpc.statement,
      ok: "The day's statement",
      errors: { 400: `\`${ErrorMessages.dateInvalid('date')}\` or \`${ErrorMessages.dateOutOfRange('date')}\`` },
      answer: ({ req, scope, call }) => {
        const date = String(req.params.date);
        if (!isDay(date)) return new Refusal(400, ErrorMessages.dateInvalid('date'));
        if (!isStatementDay(date)) return new Refusal(400, ErrorMessages.dateOutOfRange('date'));
        return call({ ...scope, date });
      },
    }),
  ],
};

export const PUBLIC_API: readonly OperationGroup[] = [
  { ...payments, operations: [...payments.operations, ...refundOperations, ...disputeOperations] },
  sandbox,
  events,
  balanceTransactions,
  statements,
];

const json = express.json({ limit: '64kb', strict: false, type: () => true });

// A required body's content type is checked before it is read, so a form post is told what is
// wrong with it rather than that it is malformed JSON. The header itself is read (req.is() answers
// null for a request without a body), so an empty JSON request is validated like `{}`.
const requireJson: RequestHandler = (req, res, next) => {
  if (typeis.is(req.get('content-type') ?? '', ['application/json']) !== 'application/json') {
    return sendError(res, 400, ErrorMessages.unsupportedMediaType);
  }
  next();
};

// An optional body may be absent (an empty one is none); one that is there must be JSON.
const optionalJson: RequestHandler = (req, res, next) => {
  const length = req.get('content-length');
  const hasBody = req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
  if (hasBody && typeis(req, ['application/json']) !== 'application/json') {
    return sendError(res, 400, ErrorMessages.unsupportedMediaType);
  }
  next();
};

/** One group's operations, and 405 with Allow for the methods a path of it does not take. */
function groupRouter(group: OperationGroup, backends: Backends): Router {
  const router = express.Router();
  const allowed = new Map<string, string[]>();
  for (const { method, path, body, handler } of group.operations) {
    const route = path || '/';
    const parse = body ? [body.required ? requireJson : optionalJson, json] : [];
    router[method](route, ...parse, handler(backends));
    allowed.set(route, [...(allowed.get(route) ?? []), method.toUpperCase()]);
  }
  for (const [route, methods] of allowed) router.all(route, methodNotAllowed(...methods));
  return router;
}

/** Every group under both path forms, behind `auth` (requireStore). */
export function mountPublicApi(app: Express, options: Backends & { auth: RequestHandler }): void {
  const { nc, rpcTimeoutMs, idempotencyKeys, views } = options;
  for (const group of PUBLIC_API) {
    const router = groupRouter(group, { nc, rpcTimeoutMs, idempotencyKeys, views });
    for (const form of PATH_FORMS) app.use(`${form.prefix}/${group.path}`, options.auth, router);
  }
}
