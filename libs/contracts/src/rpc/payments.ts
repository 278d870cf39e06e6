import { z } from 'zod';
import {
  BalanceExportPageSchema,
  BalanceListQuerySchema,
  BalanceTransactionListSchema,
  ExportCursorSchema,
  EXPORT_PAGE_LIMIT,
  isDay,
  isMonth,
  StatementMonthSchema,
  StatementSchema,
} from '../balance';
import { PaymentListSchema, PaymentSchema } from '../payment';
import { OpenDisputeListSchema } from '../dispute';
import { PaymentPublicViewSchema } from '../payment-page';
import { RefundListSchema, RefundSchema } from '../refund';
import {
  CreatePaymentInputSchema,
  CreateRefundInputSchema,
  DisputeDefenseInputSchema,
  ListQuerySchema,
} from '../requests';
import { ReapplyFactsReplySchema, RefusedFactsReplySchema, RefusedFactsRequestSchema } from '../signed-facts';
import { PAYMENT_STATUSES } from '../statuses';
import { RequestLivemodeSchema } from '../modes';
import {
  StatementCheckListRequestSchema,
  StatementCheckReplySchema,
  StatementCheckRunRequestSchema,
} from '../statement-check';
import { defineRpc } from './define-rpc';

/** What payments answers over NATS request/reply (queue group `payments`). */

/** A store's data in one mode (modes.ts): the caller's token says which. */
const scope = { storeId: z.string(), livemode: RequestLivemodeSchema };

export const CreatePaymentRequestSchema = z.object({
  ...scope,
  input: CreatePaymentInputSchema,
  isPublic: z.boolean(),
  /**
   * Chosen by the caller to make the create idempotent (the gateway's Idempotency-Key): a second
   * create with the same id returns the payment the first one made.
   */
  paymentId: z.uuid().optional(),
});
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequestSchema>;

const PaymentTransitionReplySchema = z.object({
  paymentId: z.string(),
  previousStatus: z.enum(PAYMENT_STATUSES),
  status: z.enum(PAYMENT_STATUSES),
});

/** Who calls what: the gateway for merchants and customers, the operator (admin) for the rest. */
const forGateway = { server: 'payments', callers: ['gateway'] } as const;

export const PaymentsRpc = {
  /** The public API's create, and the admin CLI's `payment create-internal`. */
  create: defineRpc('payments.create', CreatePaymentRequestSchema, PaymentSchema, {
    server: 'payments',
    callers: ['gateway', 'admin'],
  }),
  get: defineRpc('payments.get', z.object({ ...scope, id: z.string() }), PaymentSchema, forGateway),
  list: defineRpc('payments.list', z.object({ ...scope, query: ListQuerySchema }), PaymentListSchema, forGateway),
  /** The copy-and-paste code behind a payment's public QR image. */
  qr: defineRpc(
    'payments.qr',
    z.object({ id: z.string() }),
    z.object({ qrCopyPaste: z.string().nullable() }),
    forGateway,
  ),
  /** The hosted payment page's read of a payment, by id alone (what the customer may see). */
  publicView: defineRpc('payments.public-view', z.object({ id: z.string() }), PaymentPublicViewSchema, forGateway),
  /** The merchant cancels a pending payment: not_approved at once, its charge removed at the PSP after. */
  cancel: defineRpc('payments.cancel', z.object({ ...scope, id: z.string() }), PaymentSchema, forGateway),
  /**
   * A refund of an approved payment. `refundId` is chosen by the caller (the gateway's
   * Idempotency-Key): asking again with the same id answers the refund the first request made.
   */
  refundsCreate: defineRpc(
    'payments.refunds.create',
    z.object({ ...scope, paymentId: z.string(), refundId: z.uuid(), input: CreateRefundInputSchema }),
    RefundSchema,
    forGateway,
  ),
  refundsList: defineRpc(
    'payments.refunds.list',
    z.object({ ...scope, paymentId: z.string() }),
    RefundListSchema,
    forGateway,
  ),
  refundsGet: defineRpc(
    'payments.refunds.get',
    z.object({ ...scope, paymentId: z.string(), refundId: z.string() }),
    RefundSchema,
    forGateway,
  ),
  /** The merchant's defence of the payment's open dispute, forwarded to the PSP: the payment as it is after. */
  disputeDefense: defineRpc(
    'payments.disputes.defense',
    z.object({ ...scope, paymentId: z.string(), input: DisputeDefenseInputSchema }),
    PaymentSchema,
    forGateway,
  ),
  /** A store's open disputes, the nearest deadline first (the dashboard's Contestações). */
  disputesOpen: defineRpc('payments.disputes.open', z.object(scope), OpenDisputeListSchema, forGateway),
  /** A page of the store's balance transactions in the mode, newest first. */
  balanceList: defineRpc(
    'payments.balance.list',
    z.object({ ...scope, query: BalanceListQuerySchema }),
    BalanceTransactionListSchema,
    forGateway,
  ),
  /** A page of the CSV export of days `from` to `to`, oldest first, after `cursor` (null: the first). */
  balanceExport: defineRpc(
    'payments.balance.export',
    z.object({
      ...scope,
      from: z.string().refine(isDay),
      to: z.string().refine(isDay),
      cursor: ExportCursorSchema.nullable(),
      limit: z.number().int().min(1).max(EXPORT_PAGE_LIMIT),
    }),
    BalanceExportPageSchema,
    forGateway,
  ),
  /** The store's statement of one São Paulo day. */
  statement: defineRpc(
    'payments.statements.day',
    z.object({ ...scope, date: z.string().refine(isDay) }),
    StatementSchema,
    forGateway,
  ),
  /** The store's statement of each day of a month (AAAA-MM): the dashboard's Extrato. */
  statementMonth: defineRpc(
    'payments.statements.month',
    z.object({ ...scope, month: z.string().refine(isMonth) }),
    StatementMonthSchema,
    forGateway,
  ),
  /** Admin: drives a payment through the state machine (internal statuses). */
  transition: defineRpc(
    'payments.admin.transition',
    z.object({ paymentId: z.string(), status: z.enum(PAYMENT_STATUSES) }),
    PaymentTransitionReplySchema,
    { server: 'payments', callers: ['admin'] },
  ),
  /** Admin: the newest PSP facts payments refused (unsigned, or not signed by the adapter's key). */
  refusedFacts: defineRpc('payments.admin.refused-facts', RefusedFactsRequestSchema, RefusedFactsReplySchema, {
    server: 'payments',
    callers: ['admin'],
  }),
  /** Admin: after a key fix, applies the refused PSP facts that verify now. */
  reapplyFacts: defineRpc('payments.admin.reapply-facts', z.object({}), ReapplyFactsReplySchema, {
    server: 'payments',
    callers: ['admin'],
  }),
  /** Admin: checks a day's statement against every PSP connection's listing now, and answers what differs. */
  statementCheckRun: defineRpc(
    'payments.admin.statement-check.run',
    StatementCheckRunRequestSchema,
    StatementCheckReplySchema,
    { server: 'payments', callers: ['admin'] },
  ),
  /** Admin: the newest statement checks stored, a day and connection each. */
  statementCheckResults: defineRpc(
    'payments.admin.statement-check.results',
    StatementCheckListRequestSchema,
    StatementCheckReplySchema,
    { server: 'payments', callers: ['admin'] },
  ),
} as const;
