import {
  brlToCents,
  EmailSchema,
  ErrorMessages,
  EXPIRES_IN_BOUNDS,
  MAX_REFUND_REASON_CHARS,
  PIX_MAX_AMOUNT_CENTS,
  LIST_BOUNDS,
  EVENT_TYPES,
  MAX_AMOUNT_CENTS,
  MAX_OBSERVATION_CHARS,
  MAX_WEBHOOK_URL_CHARS,
  MIN_AMOUNT_CENTS,
  PUBLIC_STATUSES,
  QueryMessages,
  type CreatePaymentInput,
  type CreateRefundInput,
  type EventListQuery,
  type ListQuery,
  type PublicStatus,
} from '@pix/contracts';

export type Validated<T> = { ok: true; value: T } | { ok: false; message: string };

/** Absent and null mean the same for the optional fields, as with class-validator's IsOptional. */
function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

function isWebhookUrl(value: string): boolean {
  if (value.length > MAX_WEBHOOK_URL_CHARS) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** `expiresIn`: whole seconds within EXPIRES_IN_BOUNDS (a number, not "60", not 1.5). */
function isExpiresIn(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= EXPIRES_IN_BOUNDS.min &&
    value <= EXPIRES_IN_BOUNDS.max
  );
}

/**
 * Validates a create-payment body (spec 2.2). With several invalid fields the first of amount,
 * email, observation, webhookUrl is reported, with the spec's message; then expiresIn, which the
 * spec does not have, with its own.
 */
export function validateCreateBody(body: unknown): Validated<CreatePaymentInput> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: ErrorMessages.bodyNotObject };
  }
  const { amount, email, observation, webhookUrl, expiresIn } = body as Record<string, unknown>;

  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    return { ok: false, message: ErrorMessages.amountInvalid };
  }
  if (amount < MIN_AMOUNT_CENTS / 100) return { ok: false, message: ErrorMessages.amountMin };
  if (amount > MAX_AMOUNT_CENTS / 100) return { ok: false, message: ErrorMessages.amountMax };
  const amountCents = brlToCents(amount);
  if (amountCents === null) return { ok: false, message: ErrorMessages.amountTooPrecise };

  if (!isAbsent(email) && (typeof email !== 'string' || !EmailSchema.safeParse(email).success)) {
    return { ok: false, message: ErrorMessages.emailInvalid };
  }
  if (!isAbsent(observation)) {
    if (typeof observation !== 'string') return { ok: false, message: ErrorMessages.observationInvalid };
    // Characters, not UTF-16 units: an emoji is one character to the merchant.
    if ([...observation].length > MAX_OBSERVATION_CHARS) {
      return { ok: false, message: ErrorMessages.observationTooLong };
    }
  }
  if (!isAbsent(webhookUrl) && (typeof webhookUrl !== 'string' || !isWebhookUrl(webhookUrl))) {
    return { ok: false, message: ErrorMessages.webhookUrlInvalid };
  }
  if (!isAbsent(expiresIn) && !isExpiresIn(expiresIn)) return { ok: false, message: ErrorMessages.expiresInInvalid };
  return {
    ok: true,
    value: {
      amountCents,
      email: isAbsent(email) ? null : email,
      observation: isAbsent(observation) ? null : observation,
      webhookUrl: isAbsent(webhookUrl) ? null : webhookUrl,
      expiresInSeconds: isAbsent(expiresIn) ? null : expiresIn,
    },
  };
}

/**
 * Validates a refund body: `amount` (BRL, above zero, at most two decimals; absent or null: all that
 * is left) then `reason` (text up to 140 characters, the devolução's descricao). An absent body is
 * a refund of everything left.
 */
export function validateRefundBody(body: unknown): Validated<CreateRefundInput> {
  if (body === undefined) return { ok: true, value: { amountCents: null, reason: null } };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: ErrorMessages.bodyNotObject };
  }
  const { amount, reason } = body as Record<string, unknown>;
  let amountCents: number | null = null;
  if (!isAbsent(amount)) {
    const cents = typeof amount === 'number' ? brlToCents(amount) : null;
    if (cents === null || cents <= 0 || cents > PIX_MAX_AMOUNT_CENTS) {
      return { ok: false, message: ErrorMessages.refundAmountInvalid };
    }
    amountCents = cents;
  }
  if (!isAbsent(reason) && (typeof reason !== 'string' || [...reason].length > MAX_REFUND_REASON_CHARS)) {
    return { ok: false, message: ErrorMessages.refundReasonInvalid };
  }
  return { ok: true, value: { amountCents, reason: isAbsent(reason) || reason === '' ? null : reason } };
}

/**
 * An integer query parameter within its bounds. A well-formed integer beyond them is told the
 * bound, however many digits it has (not that it is no integer, as a check of safe integers did).
 */
function integerParam(
  raw: unknown,
  name: string,
  bounds: { min: number; max: number; fallback: number },
): Validated<number> {
  if (raw === undefined) return { ok: true, value: bounds.fallback };
  if (typeof raw !== 'string' || !/^[+-]?\d+$/.test(raw.trim())) {
    return { ok: false, message: QueryMessages.notInteger(name) };
  }
  const value = Number(raw);
  if (value < bounds.min) return { ok: false, message: QueryMessages.tooSmall(name, bounds.min) };
  if (value > bounds.max) return { ok: false, message: QueryMessages.tooLarge(name, bounds.max) };
  return { ok: true, value };
}

/** `page` and `limit`, as every paged list takes them (LIST_BOUNDS). */
function validatePaging(query: Record<string, unknown>): Validated<{ page: number; limit: number }> {
  const page = integerParam(query.page, 'page', { min: 1, max: LIST_BOUNDS.maxPage, fallback: 1 });
  if (!page.ok) return page;
  const limit = integerParam(query.limit, 'limit', {
    min: 1,
    max: LIST_BOUNDS.maxLimit,
    fallback: LIST_BOUNDS.defaultLimit,
  });
  if (!limit.ok) return limit;
  return { ok: true, value: { page: page.value, limit: limit.value } };
}

/** Validates the list's query (spec 4.3): page 1..LIST_BOUNDS.maxPage, limit 1..200, status one of the four. */
export function validateListQuery(query: Record<string, unknown>): Validated<ListQuery> {
  const paging = validatePaging(query);
  if (!paging.ok) return paging;
  const status = query.status;
  if (
    status !== undefined &&
    !(typeof status === 'string' && (PUBLIC_STATUSES as readonly string[]).includes(status))
  ) {
    return { ok: false, message: QueryMessages.notOneOf('status', PUBLIC_STATUSES) };
  }
  return {
    ok: true,
    value: { ...paging.value, ...(status ? { status: status as PublicStatus } : {}) },
  };
}

/**
 * Validates the Events API's query: page and limit as the payments list, `type` one of the event
 * types, `paymentId` a payment id (of the store or not: another store's finds nothing).
 */
export function validateEventsQuery(query: Record<string, unknown>): Validated<EventListQuery> {
  const paging = validatePaging(query);
  if (!paging.ok) return paging;
  const { type, paymentId } = query;
  if (type !== undefined && !(typeof type === 'string' && (EVENT_TYPES as readonly string[]).includes(type))) {
    return { ok: false, message: QueryMessages.notOneOf('type', EVENT_TYPES) };
  }
  if (paymentId !== undefined && !isPaymentId(paymentId)) return { ok: false, message: ErrorMessages.paymentIdInvalid };
  return {
    ok: true,
    value: {
      ...paging.value,
      ...(type ? { type: type as EventListQuery['type'] } : {}),
      ...(paymentId ? { paymentId } : {}),
    },
  };
}

const PAYMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A payment id is a lowercase UUID; anything else is answered 404 without reaching a query. */
export function isPaymentId(value: unknown): value is string {
  return typeof value === 'string' && PAYMENT_ID.test(value);
}
