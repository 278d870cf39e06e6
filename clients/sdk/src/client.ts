import { send, type Transport } from './http.js';
import { DEFAULT_RETRY, withRetries, type RetryOptions } from './retry.js';
import type {
  BalanceTransaction,
  BalanceTransactionList,
  CreatePaymentBody,
  CreateRefundBody,
  EventDetail,
  EventList,
  EventRedelivery,
  ListBalanceTransactionsQuery,
  ListEventsQuery,
  ListPaymentsQuery,
  Payment,
  PaymentList,
  Refund,
  RefundList,
  SandboxAnalysis,
  SandboxPayBody,
  SandboxPayment,
  SandboxRefundFailure,
  SandboxMedBody,
  SandboxMedReturn,
  Statement,
} from './types.js';
import { verifyWebhook } from './webhooks.js';

export interface ClientOptions {
  /** The API's address, e.g. `https://api.example.com` (the paths are under /public-api/v1). */
  baseUrl: string;
  /** The store's bearer token (`pxt_…`). */
  token: string;
  /** Per request (default 30 s); a timeout is a connection error. */
  timeoutMs?: number;
  /** How create retries (network errors and 5xx only); `{ retries: 0 }` turns it off. */
  retry?: Partial<RetryOptions>;
  /** Another fetch (a proxy agent, a test double); the global one by default. */
  fetch?: typeof fetch;
}

export interface CreateOptions {
  /** Sent as Idempotency-Key; a new random one by default. Reuse it to retry a create (or a refund) yourself. */
  idempotencyKey?: string;
}

const V1 = '/public-api/v1';
const seg = encodeURIComponent;

/** Every item of every page, fetching the next page only when the iteration gets there. */
async function* allPages<T, Q extends { page?: number; limit?: number }>(
  list: (query: Q) => Promise<{ items: T[]; page: number; limit: number; total: number }>,
  query: Q,
): AsyncGenerator<T, void, undefined> {
  for (let page = query.page ?? 1; ; page++) {
    const result = await list({ ...query, page, limit: query.limit ?? 100 });
    yield* result.items;
    if (result.items.length === 0 || page * result.limit >= result.total) return;
  }
}

/** The statement's days are São Paulo's, whatever the caller's time zone. */
const saoPauloDate = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** AAAA-MM-DD as given, or the day a moment falls on in America/Sao_Paulo. */
function statementDay(date: string | Date): string {
  if (typeof date === 'string') return date;
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    saoPauloDate.formatToParts(date).find((p) => p.type === type)?.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** A client of the Pix Public Payments API for one store. */
export function createClient(options: ClientOptions) {
  const transport: Transport = {
    baseUrl: options.baseUrl,
    token: options.token,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    timeoutMs: options.timeoutMs ?? 30_000,
  };
  const retry: RetryOptions = { ...DEFAULT_RETRY, ...options.retry };

  /**
   * A POST that creates something, safe to send again: it carries an Idempotency-Key (a new random
   * one unless given) and retries network errors and 5xx with that same key, with backoff, so a
   * retry never makes a second one; a 4xx is thrown at once.
   */
  const idempotentPost = <T>(path: string, body: unknown, options: CreateOptions): Promise<T> => {
    const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    return withRetries(retry, () =>
      send<T>(transport, { method: 'POST', path, body, headers: { 'idempotency-key': key } }),
    );
  };

  const payments = {
    /** Creates a payment (idempotent, retried with its key: see idempotentPost). */
    create(body: CreatePaymentBody, createOptions: CreateOptions = {}): Promise<Payment> {
      return idempotentPost<Payment>(`${V1}/payments`, body, createOptions);
    },
    get(id: string): Promise<Payment> {
      return send<Payment>(transport, { method: 'GET', path: `${V1}/payments/${seg(id)}` });
    },
    /** One page, newest first. */
    list(query: ListPaymentsQuery = {}): Promise<PaymentList> {
      return send<PaymentList>(transport, { method: 'GET', path: `${V1}/payments`, query });
    },
    /** Every payment matching the query, page after page (100 a page unless `limit` says otherwise). */
    listAll(query: Omit<ListPaymentsQuery, 'page'> = {}): AsyncGenerator<Payment, void, undefined> {
      return allPages(payments.list, query);
    },
    /** Cancels a pending payment: not_approved at once, its charge removed at the PSP. Not retried. */
    cancel(id: string): Promise<Payment> {
      return send<Payment>(transport, { method: 'POST', path: `${V1}/payments/${seg(id)}/cancel` });
    },
    /**
     * Answers the payment's open dispute (MED) with a defence, 1 to 1000 characters, forwarded to the
     * PSP once; the same text again answers the payment as it is. Answers the payment with its dispute.
     */
    defendDispute(id: string, text: string): Promise<Payment> {
      return send<Payment>(transport, {
        method: 'POST',
        path: `${V1}/payments/${seg(id)}/dispute/defense`,
        body: { text },
      });
    },
  };

  const refunds = {
    /**
     * Refunds all (no `amount`) or part of an approved payment. Idempotent and retried with its key,
     * as `payments.create` is: a retry never refunds twice.
     */
    create(paymentId: string, body: CreateRefundBody = {}, createOptions: CreateOptions = {}): Promise<Refund> {
      return idempotentPost<Refund>(`${V1}/payments/${seg(paymentId)}/refunds`, body, createOptions);
    },
    /** The payment's refunds, newest first. */
    list(paymentId: string): Promise<RefundList> {
      return send<RefundList>(transport, { method: 'GET', path: `${V1}/payments/${seg(paymentId)}/refunds` });
    },
    get(paymentId: string, refundId: string): Promise<Refund> {
      return send<Refund>(transport, {
        method: 'GET',
        path: `${V1}/payments/${seg(paymentId)}/refunds/${seg(refundId)}`,
      });
    },
  };

  const events = {
    /** One page of the store's webhook events, newest first. */
    list(query: ListEventsQuery = {}): Promise<EventList> {
      return send<EventList>(transport, { method: 'GET', path: `${V1}/events`, query });
    },
    listAll(query: Omit<ListEventsQuery, 'page'> = {}) {
      return allPages(events.list, query);
    },
    /** One event with every delivery attempt. */
    get(eventId: string): Promise<EventDetail> {
      return send<EventDetail>(transport, { method: 'GET', path: `${V1}/events/${seg(eventId)}` });
    },
    /** Delivers a delivered or dead event again with the same webhook-id (409 while it is being retried). */
    redeliver(eventId: string): Promise<EventRedelivery> {
      return send<EventRedelivery>(transport, { method: 'POST', path: `${V1}/events/${seg(eventId)}/redeliver` });
    },
  };

  const balanceTransactions = {
    /**
     * One page of the store's movements of money, newest first: `from` and `to` are days in
     * America/Sao_Paulo (inclusive; the 31 days up to today by default), `type` one kind of movement.
     */
    list(query: ListBalanceTransactionsQuery = {}): Promise<BalanceTransactionList> {
      return send<BalanceTransactionList>(transport, { method: 'GET', path: `${V1}/balance-transactions`, query });
    },
    listAll(
      query: Omit<ListBalanceTransactionsQuery, 'page'> = {},
    ): AsyncGenerator<BalanceTransaction, void, undefined> {
      return allPages(balanceTransactions.list, query);
    },
  };

  const statements = {
    /**
     * The statement of a day: AAAA-MM-DD, or a Date, whose day in America/Sao_Paulo is asked for
     * (a balance transaction's `new Date(createdAt)` reads the statement it counts in).
     */
    retrieve(date: string | Date): Promise<Statement> {
      return send<Statement>(transport, { method: 'GET', path: `${V1}/statements/${seg(statementDay(date))}` });
    },
  };

  const analysis = (action: 'review' | 'clear' | 'reject') => (paymentId: string) =>
    send<SandboxAnalysis>(transport, { method: 'POST', path: `${V1}/sandbox/payments/${seg(paymentId)}/${action}` });

  /** Sandbox deployments only: act as the customer and the PSP would. */
  const sandbox = {
    /**
     * The customer pays (another `amount` sends the payment to review; `late: true` pays even a charge
     * that can no longer be paid, a new Pix each time, which the platform returns to its payer;
     * `dropCallback: true`: the PSP never calls back, and the payment changes when the platform
     * reconciles with the PSP, within about a minute).
     */
    pay(paymentId: string, body?: SandboxPayBody): Promise<SandboxPayment> {
      return send<SandboxPayment>(transport, {
        method: 'POST',
        path: `${V1}/sandbox/payments/${seg(paymentId)}/pay`,
        body,
      });
    },
    /** The customer pays and the PSP holds the Pix for analysis. */
    review: analysis('review'),
    /** The analysis clears the held Pix: approved. */
    clear: analysis('clear'),
    /** The analysis rejects it: refunded, not approved. */
    reject: analysis('reject'),
    /** The PSP settles the payment's next refund as not done (refund.failed, with its motivo). */
    failNextRefund(paymentId: string): Promise<SandboxRefundFailure> {
      return send<SandboxRefundFailure>(transport, {
        method: 'POST',
        path: `${V1}/sandbox/payments/${seg(paymentId)}/fail-next-refund`,
      });
    },
    /**
     * The PSP returns the payment's Pix on its own, as after an upheld fraud claim (MED): the payment
     * gains a refund of origin `psp` (refund.created, then refund.succeeded).
     */
    med(paymentId: string, body?: SandboxMedBody): Promise<SandboxMedReturn> {
      return send<SandboxMedReturn>(transport, {
        method: 'POST',
        path: `${V1}/sandbox/payments/${seg(paymentId)}/med`,
        body,
      });
    },
  };

  return {
    payments,
    refunds,
    events,
    balanceTransactions,
    statements,
    sandbox,
    webhooks: { verify: verifyWebhook },
  };
}

export type PixPaymentsClient = ReturnType<typeof createClient>;
