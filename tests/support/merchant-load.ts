import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** One request of the load, as the merchant's client saw it. */
export interface Attempt {
  key: string;
  sentAt: number;
  at: number;
  /** The HTTP status, or 0 for a network error or a timeout. */
  status: number;
  /** A 5xx's message, or the network error's: what a failure outside a fault is told by. */
  why?: string;
}

/** A refund the merchant asked for: its key, its id, and how much (centavos). */
export interface AskedRefund {
  key: string;
  id: string;
  amountCents: number;
}

/**
 * A created payment: its key, its id, whether its customer pays it (and whether the PSP loses
 * that Pix's callback), when the create was first sent; the refunds the merchant asked of it once
 * approved, and whether the merchant cancelled it.
 */
export interface Created {
  key: string;
  id: string;
  paid: boolean;
  callbackDropped: boolean;
  firstSentAt: number;
  refunds: AskedRefund[];
  cancelled: boolean;
}

const REQUEST_TIMEOUT_MS = 15_000;
/**
 * Connections kept between requests, as a merchant's HTTP client keeps them. node:http rather than
 * fetch: at 75 requests a second fetch cost the test process a tenth of a core, CPU the stack under
 * test then does not have.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** POSTs JSON and reads the answer; rejects on a network error or after the timeout. */
function post(url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}
/** Retries back off, doubling from the first delay to the last, as a well-behaved client does under an outage. */
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 4000;

/**
 * A merchant's client over several gateway replicas, as the spec tells clients to behave: a network
 * error or a 5xx is retried with the same Idempotency-Key, on the next replica, backing off. Every attempt is
 * recorded, with the answer of each, so that the test can tell when creates succeeded again after
 * a fault.
 */
export class MerchantClient {
  readonly attempts: Attempt[] = [];
  /** Every 200 answer per key: a retry must return the payment the first answer named. */
  readonly answers = new Map<string, string[]>();

  /** Requests that were never answered with a final answer within the client's patience. */
  readonly givenUp: { key: string; firstSentAt: number; lastStatus: number }[] = [];

  /**
   * `patienceMs`: how long one request is retried, from its first attempt, before it is given up
   * (a careful merchant retries for a minute). `halt` ends every retry loop at once (the test
   * failed, or is over): a client left retrying would outlive its test and load the suites that
   * run after it.
   */
  constructor(
    private readonly gateways: readonly string[],
    private readonly token: string,
    private readonly patienceMs: number,
    private readonly halt: AbortSignal,
  ) {}

  get halted(): boolean {
    return this.halt.aborted;
  }

  /** Sends until the answer is final (2xx or a 4xx other than `retryStatus`), then returns it. */
  private async send(
    key: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    start: number,
    retryStatus?: number,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const giveUpAt = Date.now() + this.patienceMs;
    for (let n = start, delay = FIRST_RETRY_MS; ; n++, delay = Math.min(delay * 2, LAST_RETRY_MS)) {
      const base = this.gateways[n % this.gateways.length];
      const sentAt = Date.now();
      let status = 0;
      let parsed: Record<string, unknown> = {};
      let why: string | undefined;
      try {
        const res = await post(
          new URL(path, base),
          { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', ...headers },
          JSON.stringify(body),
        );
        status = res.status;
        try {
          parsed = JSON.parse(res.text) as Record<string, unknown>;
        } catch {
          parsed = {};
        }
        if (status >= 500) why = typeof parsed.message === 'string' ? parsed.message : res.text.slice(0, 200);
      } catch (err) {
        status = 0; // refused, reset or timed out: the replica is away
        why = err instanceof Error ? err.message : String(err);
      }
      this.attempts.push({ key, sentAt, at: Date.now(), status, ...(why !== undefined && { why }) });
      if (status !== 0 && status < 500 && status !== retryStatus) return { status, body: parsed };
      if (Date.now() > giveUpAt || this.halt.aborted) {
        if (!this.halt.aborted) this.givenUp.push({ key, firstSentAt: giveUpAt - this.patienceMs, lastStatus: status });
        throw new Error(`${key}: gave up, last answer ${status}`);
      }
      await sleep(delay * (0.5 + Math.random() / 2));
    }
  }

  /** Creates a payment under its Idempotency-Key; a final answer other than 200 is an error. */
  async create(key: string, n: number, amount: number, webhookUrl: string): Promise<string> {
    const res = await this.send(key, '/public-api/v1/payments', { amount, webhookUrl }, { 'idempotency-key': key }, n);
    if (res.status !== 200 || typeof res.body.id !== 'string') {
      throw new Error(`${key}: create answered ${res.status} ${JSON.stringify(res.body)}`);
    }
    this.answers.set(key, [...(this.answers.get(key) ?? []), res.body.id]);
    return res.body.id;
  }

  /**
   * Refunds part of a payment (`amount` in BRL; absent: all that is left) under its own
   * Idempotency-Key, once it is approved: a 409 (not approved yet, its Pix on its way) is retried.
   */
  async refund(key: string, n: number, paymentId: string, amount?: number): Promise<AskedRefund> {
    const body = amount === undefined ? {} : { amount };
    const res = await this.send(
      key,
      `/public-api/v1/payments/${paymentId}/refunds`,
      body,
      { 'idempotency-key': key },
      n,
      409,
    );
    if (res.status !== 200 || typeof res.body.id !== 'string' || typeof res.body.amount !== 'number') {
      throw new Error(`${key}: refund answered ${res.status} ${JSON.stringify(res.body)}`);
    }
    this.answers.set(key, [...(this.answers.get(key) ?? []), res.body.id]);
    return { key, id: res.body.id, amountCents: Math.round(res.body.amount * 100) };
  }

  /**
   * Cancels a pending payment. A 409 is final: the payment is no longer pending, which after a
   * retry means an earlier attempt cancelled it (the test checks that it did).
   */
  async cancel(key: string, n: number, paymentId: string): Promise<void> {
    const res = await this.send(`${key}:cancel`, `/public-api/v1/payments/${paymentId}/cancel`, {}, {}, n);
    if (res.status !== 200 && res.status !== 409) {
      throw new Error(`${key}: cancel answered ${res.status} ${JSON.stringify(res.body)}`);
    }
  }

  /**
   * Pays a payment through the sandbox route, as the customer would. A 409 here means the charge
   * is not created yet (the adapter was away at create; payments retries it), so it is retried too;
   * a retry of a paid charge answers the same Pix. `dropCallback`: the PSP loses the Pix's callback,
   * and only the platform's reconciliation with the PSP tells of it.
   */
  async pay(key: string, n: number, paymentId: string, dropCallback: boolean): Promise<void> {
    const body = dropCallback ? { dropCallback: true } : {};
    const res = await this.send(`${key}:pay`, `/public-api/v1/sandbox/payments/${paymentId}/pay`, body, {}, n, 409);
    if (res.status !== 200) throw new Error(`${key}: pay answered ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/**
 * Creates `rate` payments per second (open loop: a slow answer does not slow the load) until
 * stopped; every other payment is paid by its customer. Of the paid ones, one in five is refunded
 * in part (1 BRL), and one in ten of them again for all that is left; of the others (never refunded:
 * their approval waits for a reconciliation), about one in four has its callback lost by the PSP;
 * of the unpaid ones, one in five is cancelled by the merchant. `stop()` resolves once every payment has its final answers: the
 * payments made, and the errors of those that did not end well (a create, pay, refund or cancel
 * given up, a final answer other than expected).
 */
export function startLoad(options: { client: MerchantClient; rate: number; webhookUrl: string; keyPrefix: string }): {
  stop: () => Promise<{ created: Created[]; failed: string[] }>;
} {
  const { client, rate, webhookUrl, keyPrefix } = options;
  const start = Date.now();
  const payments: Promise<Created>[] = [];
  let stopped = false;
  const one = async (i: number): Promise<Created> => {
    const key = `${keyPrefix}-${i}`;
    const firstSentAt = Date.now();
    const id = await client.create(key, i, 5 + (i % 300), webhookUrl);
    const paid = i % 2 === 0;
    const callbackDropped = paid && i % 8 === 2 && i % 10 !== 0;
    const refunds: AskedRefund[] = [];
    if (paid) {
      await client.pay(key, i, id, callbackDropped);
      if (i % 10 === 0) refunds.push(await client.refund(`${key}:refund-1`, i, id, 1));
      if (i % 20 === 0) refunds.push(await client.refund(`${key}:refund-2`, i, id));
    }
    const cancelled = i % 10 === 1;
    if (cancelled) await client.cancel(key, i, id);
    return { key, id, paid, callbackDropped, firstSentAt, refunds, cancelled };
  };
  const ticking = (async () => {
    for (let i = 0; !stopped && !client.halted; i++) {
      await sleep(start + (i * 1000) / rate - Date.now());
      if (stopped || client.halted) break;
      payments.push(one(i));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await ticking;
      const settled = await Promise.allSettled(payments);
      return {
        created: settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : [])),
        failed: settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : [])),
      };
    },
  };
}
