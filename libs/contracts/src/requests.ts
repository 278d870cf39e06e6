import { z } from 'zod';
import { ErrorMessages, QueryMessages, SandboxMessages } from './errors';
import { BALANCE_TRANSACTION_TYPES, isDay, isStatementDay, STATEMENT_FIRST_DAY } from './balance';
import { EVENT_TYPES } from './events';
import { AMOUNT_STEP_BRL, brlToCents, MAX_AMOUNT_CENTS, MIN_AMOUNT_CENTS, PIX_MAX_AMOUNT_CENTS } from './money';
import {
  EXPIRES_IN_BOUNDS,
  LIST_BOUNDS,
  MAX_EMAIL_CHARS,
  MAX_OBSERVATION_CHARS,
  MAX_WEBHOOK_URL_CHARS,
} from './payment';
import { MAX_DISPUTE_DEFENSE_CHARS } from './dispute';
import { MAX_REFUND_REASON_CHARS, MED_NATURES, type MedNature } from './refund';
import { PUBLIC_STATUSES } from './statuses';

/**
 * The public API's requests, one schema per body and query: the gateway validates with them, the
 * OpenAPI document is generated from them, and the RPC requests the gateway sends are built from
 * the same fields, bounds included.
 *
 * A refusal answers one message, the spec's for the first bad field (spec 2.2 and 7): zod reports
 * the fields in the order of the shape and each field's checks in the order written, so the first
 * issue is the one answered (checkRequest) and every check carries its message. A check that
 * JSON Schema cannot say as zod writes it (characters rather than UTF-16 units, the decimals of
 * a number as JSON writes it) is a refine, and the document states its bound in `meta`.
 */

/** An amount with at most two decimals (whole centavos), read as brlToCents reads it. */
const wholeCentavos = (amount: number) => brlToCents(amount) !== null;

/** Characters, not UTF-16 units: an emoji is one character to the merchant (and to JSON Schema). */
const atMostChars = (max: number) => (text: string) => [...text].length <= max;

/** An http or https URL with a host (JSON Schema's `format: uri` takes any scheme). */
function isWebhookUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** The message a check answers with (zod's `error`). */
const says = (message: string) => ({ error: message });

// ---- The create-payment body (spec 2.2) ----

const amountField = z
  .number(says(ErrorMessages.amountInvalid))
  .min(MIN_AMOUNT_CENTS / 100, says(ErrorMessages.amountMin))
  .max(MAX_AMOUNT_CENTS / 100, says(ErrorMessages.amountMax))
  .refine(wholeCentavos, says(ErrorMessages.amountTooPrecise))
  .meta({ multipleOf: AMOUNT_STEP_BRL, description: 'BRL, at most two decimal places (centavos)', examples: [25.5] });

/**
 * An e-mail as the gateway takes it: zod's e-mail pattern, stated as a pattern (not `format: email`)
 * so that the OpenAPI document says exactly what is checked, not what a client's validator takes an
 * e-mail to be.
 */
const emailField = z
  .string(says(ErrorMessages.emailInvalid))
  .max(MAX_EMAIL_CHARS, says(ErrorMessages.emailInvalid))
  .regex(z.regexes.email, says(ErrorMessages.emailInvalid));

const observationField = z
  .string(says(ErrorMessages.observationInvalid))
  .refine(atMostChars(MAX_OBSERVATION_CHARS), says(ErrorMessages.observationTooLong))
  .meta({ maxLength: MAX_OBSERVATION_CHARS });

const webhookUrlField = z
  .string(says(ErrorMessages.webhookUrlInvalid))
  .max(MAX_WEBHOOK_URL_CHARS, says(ErrorMessages.webhookUrlInvalid))
  .refine(isWebhookUrl, says(ErrorMessages.webhookUrlInvalid))
  .meta({ format: 'uri' });

const expiresInField = z
  .number(says(ErrorMessages.expiresInInvalid))
  .int(says(ErrorMessages.expiresInInvalid))
  .min(EXPIRES_IN_BOUNDS.min, says(ErrorMessages.expiresInInvalid))
  .max(EXPIRES_IN_BOUNDS.max, says(ErrorMessages.expiresInInvalid));

/** A validated create request, as the gateway hands it to payments (amount in centavos). */
export const CreatePaymentInputSchema = z.object({
  /**
   * Up to what API Pix can carry, not the public API's 5 to 3000: the operator's create-internal
   * (admin CLI) is not held to the merchant's limits.
   */
  amountCents: z.number().int().positive().max(PIX_MAX_AMOUNT_CENTS),
  email: emailField.nullable(),
  observation: observationField.nullable(),
  webhookUrl: webhookUrlField.nullable(),
  /**
   * Seconds the charge lives; null: the platform's default (PIX_CHARGE_TTL). A gateway from before
   * expiresIn existed sends none, which is the default too.
   */
  expiresInSeconds: expiresInField.nullable().default(null),
});
export type CreatePaymentInput = z.infer<typeof CreatePaymentInputSchema>;

/**
 * The create-payment body as a merchant sends it (spec 2.2), checked in the spec's order: amount,
 * email, observation, webhookUrl, then expiresIn (which the spec does not have). Absent and null
 * mean the same for the optional fields, as with class-validator's IsOptional; an empty body is
 * validated like `{}` (its amount is missing).
 */
export const CreatePaymentBodySchema = z
  .preprocess(
    (body) => body ?? {},
    z
      .object(
        {
          amount: amountField,
          email: emailField.nullable().optional(),
          observation: observationField.nullable().optional(),
          webhookUrl: webhookUrlField.nullable().optional().meta({ description: 'http or https' }),
          expiresIn: expiresInField.nullable().optional().meta({
            description: "Seconds until the charge expires (60 to 2,592,000, 30 days); absent: the platform's default",
          }),
        },
        says(ErrorMessages.bodyNotObject),
      )
      // Other properties are ignored, not refused: the document says so (additionalProperties).
      .loose(),
  )
  .transform((body): CreatePaymentInput => ({
    amountCents: brlToCents(body.amount)!,
    email: body.email ?? null,
    observation: body.observation ?? null,
    webhookUrl: body.webhookUrl ?? null,
    expiresInSeconds: body.expiresIn ?? null,
  }));

// ---- Refund, and the sandbox's pay ----

/** A BRL amount above zero with at most two decimals, up to what API Pix can carry (its valor). */
const pixAmountField = (message: string) =>
  z
    .number(says(message))
    .gt(0, says(message))
    .max(PIX_MAX_AMOUNT_CENTS / 100, says(message))
    .refine(wholeCentavos, says(message))
    .meta({ multipleOf: AMOUNT_STEP_BRL });

const refundReasonField = z
  .string(says(ErrorMessages.refundReasonInvalid))
  .refine(atMostChars(MAX_REFUND_REASON_CHARS), says(ErrorMessages.refundReasonInvalid))
  .meta({ maxLength: MAX_REFUND_REASON_CHARS });

/** A validated refund request, as the gateway hands it to payments (amount in centavos; null: all that is left). */
export const CreateRefundInputSchema = z.object({
  amountCents: z.number().int().positive().max(PIX_MAX_AMOUNT_CENTS).nullable(),
  reason: refundReasonField.nullable(),
});
export type CreateRefundInput = z.infer<typeof CreateRefundInputSchema>;

/**
 * A body that may be absent (every field absent) or a JSON object with these optional fields;
 * anything else is refused as not an object. Fields it does not name are ignored.
 */
function optionalBody<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape, says(ErrorMessages.bodyNotObject)).loose().optional();
}

/** A sandbox action's amount in BRL; `description` says what absent means. */
function sandboxAmount(description: string) {
  return pixAmountField(SandboxMessages.amountInvalid).nullable().optional().meta({ description });
}

/** An amount in BRL as centavos; absent or null stays undefined. */
function centsOrUndefined(amount: number | null | undefined): number | undefined {
  return amount === undefined || amount === null ? undefined : brlToCents(amount)!;
}

/**
 * The refund body: `amount` (absent or null: all that is left), then `reason` (the devolução's
 * descricao; empty is none). An absent body is a refund of everything left.
 */
export const CreateRefundBodySchema = optionalBody({
  amount: pixAmountField(ErrorMessages.refundAmountInvalid)
    .nullable()
    .optional()
    .meta({ description: 'BRL, at most two decimal places; absent: all that is left to refund', examples: [10] }),
  reason: refundReasonField.nullable().optional(),
}).transform((body): CreateRefundInput => {
  const amount = body?.amount ?? null;
  return { amountCents: amount === null ? null : brlToCents(amount)!, reason: body?.reason || null };
});

/** What a pay asks: another amount than the payment's (it goes to review), a late Pix, a lost callback. */
export interface SandboxPayOptions {
  amountCents: number | undefined;
  late: boolean;
  dropCallback: boolean;
}

/**
 * The optional body of the sandbox's pay: `{"amount": <brl>, "late": true, "dropCallback": true}`.
 * `late`: a new Pix even when the charge can no longer be paid (paid, expired, cancelled), which
 * goes back to its payer. `dropCallback`: the PSP receives the Pix but never calls back;
 * reconciliation finds it.
 */
export const SandboxPayBodySchema = optionalBody({
  amount: sandboxAmount('BRL paid, at most two decimal places; absent or null: the amount due'),
  late: z
    .boolean(says(SandboxMessages.lateInvalid))
    .nullable()
    .optional()
    .meta({ description: 'A new Pix whatever the charge state (each call a new endToEndId)' }),
  dropCallback: z
    .boolean(says(SandboxMessages.dropCallbackInvalid))
    .nullable()
    .optional()
    .meta({ description: "The PSP loses the Pix's callback: only reconciliation tells the platform of it" }),
}).transform((body): SandboxPayOptions => {
  return {
    amountCents: centsOrUndefined(body?.amount),
    late: body?.late === true,
    dropCallback: body?.dropCallback === true,
  };
});

/** What a MED return asks: how much (all that is left of the Pix when absent) and why. */
export interface SandboxMedOptions {
  amountCents: number | undefined;
  nature: MedNature;
}

/**
 * The optional body of the sandbox's MED return: `{"amount": <brl>, "nature": "med_fraud"}`. The
 * PSP returns the payment's Pix on its own, as it does when a payer's fraud claim is upheld.
 */
export const SandboxMedBodySchema = optionalBody({
  amount: sandboxAmount('BRL returned, at most two decimal places; absent or null: all that is left of the Pix'),
  nature: z
    .enum(MED_NATURES, says(SandboxMessages.natureInvalid))
    .nullable()
    .optional()
    .meta({ description: 'med_fraud (a fraud claim upheld; the default) or med_operational' }),
}).transform((body): SandboxMedOptions => ({
  amountCents: centsOrUndefined(body?.amount),
  nature: body?.nature ?? 'med_fraud',
}));

// ---- Ids in paths and queries ----

const PAYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A payment (or refund) id is a lowercase UUID; anything else is answered 404 without reaching a query. */
export function isPaymentId(value: unknown): value is string {
  return typeof value === 'string' && PAYMENT_ID.test(value);
}

// ---- Queries (spec 4.3): strings in, numbers and names out ----

/**
 * An integer query parameter within its bounds, class-validator's messages. A well-formed integer
 * beyond them is told the bound, however many digits it has: past about 309 digits it reads as
 * ±Infinity, which z.number refuses as no number, so that refusal names the bound it is beyond.
 */
function integerParam(name: string, min: number, max: number) {
  const bounded = z
    .number({
      error: (issue) =>
        issue.input === -Infinity ? QueryMessages.tooSmall(name, min) : QueryMessages.tooLarge(name, max),
    })
    .min(min, says(QueryMessages.tooSmall(name, min)))
    .max(max, says(QueryMessages.tooLarge(name, max)))
    .int();
  return {
    /** The number, as an RPC carries it. */
    value: bounded,
    /** The query's string, as the merchant writes it. */
    param: z
      .string(says(QueryMessages.notInteger(name)))
      .trim()
      .regex(/^[+-]?\d+$/, says(QueryMessages.notInteger(name)))
      .transform(Number)
      .pipe(bounded),
  };
}

const page = integerParam('page', 1, LIST_BOUNDS.maxPage);
const limit = integerParam('limit', 1, LIST_BOUNDS.maxLimit);
const statusField = z.enum(PUBLIC_STATUSES, says(QueryMessages.notOneOf('status', PUBLIC_STATUSES)));
const eventTypeField = z.enum(EVENT_TYPES, says(QueryMessages.notOneOf('type', EVENT_TYPES)));
const paymentIdField = z
  .string(says(ErrorMessages.paymentIdInvalid))
  .regex(PAYMENT_ID, says(ErrorMessages.paymentIdInvalid))
  .meta({ format: 'uuid', description: 'Only the events of this payment' });

/** `page` and `limit` of every paged list (LIST_BOUNDS), as an RPC carries them. */
const paging = { page: page.value, limit: limit.value };
/** `page` and `limit` as the query writes them, with their defaults. */
const pagingParams = {
  page: page.param.default(1),
  limit: limit.param.default(LIST_BOUNDS.defaultLimit),
};

/** The payments list's query, as payments takes it. */
export const ListQuerySchema = z.object({ ...paging, status: statusField.optional() });
export type ListQuery = z.infer<typeof ListQuerySchema>;

/** The payments list's query string (spec 4.3): page, limit, status, checked in that order. */
export const ListQueryParamsSchema = z.object({ ...pagingParams, status: statusField.optional() });

/** The Events API's query, as the dispatcher takes it. */
export const EventListQuerySchema = z.object({
  ...paging,
  type: eventTypeField.optional(),
  paymentId: paymentIdField.optional(),
});
export type EventListQuery = z.infer<typeof EventListQuerySchema>;

/**
 * The Events API's query string: page and limit as the payments list, `type` one of the event
 * types, `paymentId` a payment id (of the store or not: another store's finds nothing).
 */
export const EventListQueryParamsSchema = z.object({
  ...pagingParams,
  type: eventTypeField.optional(),
  paymentId: paymentIdField.optional(),
});

// ---- A dispute's defence ----

/** The defence, as payments takes it: the text, trimmed. */
export const DisputeDefenseInputSchema = z.object({
  text: z
    .string()
    .min(1)
    .max(MAX_DISPUTE_DEFENSE_CHARS * 2),
});
export type DisputeDefenseInput = z.infer<typeof DisputeDefenseInputSchema>;

/**
 * Some character that trimming keeps: JavaScript's whitespace and line terminators (what `trim()`
 * removes and `\s` matches), spelled out rather than `\s`, whose set differs between regex dialects
 * (Python's holds U+0085 and U+001C-U+001F, and not U+FEFF), so that a client reading the pattern
 * takes exactly the gateway's blank texts as blank.
 */
const NOT_BLANK = /[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * The defence body: `text`, 1 to MAX_DISPUTE_DEFENSE_CHARS characters once trimmed. That it is not
 * blank is stated as a pattern, so the OpenAPI document says it (a text of whitespace alone would
 * otherwise be valid by the document and refused by the gateway).
 */
export const DisputeDefenseBodySchema = z.object(
  {
    text: z
      .string(says(ErrorMessages.disputeDefenseInvalid))
      .regex(NOT_BLANK, says(ErrorMessages.disputeDefenseInvalid))
      .trim()
      .min(1, says(ErrorMessages.disputeDefenseInvalid))
      .refine(atMostChars(MAX_DISPUTE_DEFENSE_CHARS), says(ErrorMessages.disputeDefenseInvalid))
      .meta({
        maxLength: MAX_DISPUTE_DEFENSE_CHARS,
        description: `Why the claim is not right, sent to the PSP (1 to ${MAX_DISPUTE_DEFENSE_CHARS} characters)`,
      }),
  },
  says(ErrorMessages.bodyNotObject),
);

/** What a request schema made of a request: its value, or the message of its first refusal. */
export type RequestCheck<T> = { ok: true; value: T } | { ok: false; message: string };

export function checkRequest<S extends z.ZodType>(schema: S, input: unknown): RequestCheck<z.output<S>> {
  const result = schema.safeParse(input);
  return result.success ? { ok: true, value: result.data } : { ok: false, message: result.error.issues[0]!.message };
}

/** A day of the statement as a query writes it: AAAA-MM-DD, from the first day of Pix to today (São Paulo). */
const dayParam = (name: string) =>
  z
    .string(says(ErrorMessages.dateInvalid(name)))
    .refine(isDay, says(ErrorMessages.dateInvalid(name)))
    .refine((day) => isStatementDay(day), says(ErrorMessages.dateOutOfRange(name)))
    .meta({
      format: 'date',
      description: `AAAA-MM-DD, a day in America/Sao_Paulo, from ${STATEMENT_FIRST_DAY} to today`,
    });

/**
 * The balance transactions' query string: page and limit as the payments list, then the days
 * `from` and `to` (inclusive; absent `to` is today, absent `from` 30 days before `to`) and `type`.
 */
export const BalanceListQueryParamsSchema = z
  .object({
    ...pagingParams,
    from: dayParam('from').optional(),
    to: dayParam('to').optional(),
    type: z.enum(BALANCE_TRANSACTION_TYPES, says(QueryMessages.notOneOf('type', BALANCE_TRANSACTION_TYPES))).optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, says(ErrorMessages.dateRangeReversed));
