import fs from 'node:fs';
import path from 'node:path';
import {
  createClient,
  PixApiError,
  webhooks,
  WebhookVerificationError,
  type CreatePaymentBody,
  type CreateRefundBody,
  type ListBalanceTransactionsQuery,
  type ListEventsQuery,
  type ListPaymentsQuery,
  type PixPaymentsClient,
  type SandboxMedBody,
  type SandboxPayBody,
} from '@pix-payments/client';
import type { ConformanceEnv } from '../support/conformance';

/**
 * The TypeScript SDK's player of clients/conformance (its README is the format): every step of
 * scenario.json as one call of @pix-payments/client, then every case of webhooks.json. The Python
 * and PHP runners do the same in their languages; this one runs inside the jest test.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Params = Record<string, Json>;

interface Step {
  name: string;
  call: string;
  params: Params;
  token?: string;
  expect?: Json;
  error?: { status: number; message: string };
  poll?: { timeoutMs: number; intervalMs: number };
  save?: string;
}

interface WebhookCase {
  name: string;
  body: string;
  headers: Record<string, string>;
  now: number;
  expect?: Json;
  error?: true;
}

/** Why `actual` does not match `expected` (README: Matching), or undefined when it does. */
export function mismatch(expected: Json, actual: unknown, at = '$'): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== expected.length) return `${at}: expected ${expected.length} items, got ${actual.length}`;
    for (const [i, item] of expected.entries()) {
      const why = mismatch(item, actual[i], `${at}.${i}`);
      if (why) return why;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      if (!(key in actual)) return `${at}.${key}: absent`;
      const why = mismatch(value, (actual as Record<string, unknown>)[key], `${at}.${key}`);
      if (why) return why;
    }
    return undefined;
  }
  return actual === expected ? undefined : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** Replaces every `$name.path` and `$env.NAME` string in `value` (README: References). */
function resolve(value: Json, saved: Map<string, unknown>, env: ConformanceEnv): Json {
  if (Array.isArray(value)) return value.map((item) => resolve(item, saved, env));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolve(item, saved, env)]));
  if (typeof value !== 'string' || !/^\$[A-Za-z_][\w]*(\.[\w-]+)*$/.test(value)) return value;
  const [name, ...steps] = value.slice(1).split('.');
  let found: unknown;
  if (name === 'env') {
    found = (env as unknown as Record<string, string | undefined>)[steps.shift() ?? ''];
  } else {
    if (!saved.has(name!)) throw new Error(`${value}: nothing saved as ${name}`);
    found = saved.get(name!);
  }
  for (const step of steps) found = (found as Record<string, unknown> | undefined)?.[step];
  if (found === undefined) throw new Error(`${value}: refers to nothing`);
  return found as Json;
}

async function drain<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const key = (params: Params) =>
  params.idempotencyKey === undefined ? {} : { idempotencyKey: String(params.idempotencyKey) };
const without = (params: Params, ...names: string[]) =>
  Object.fromEntries(Object.entries(params).filter(([name]) => !names.includes(name)));

/** Each `call` of the scenario as the SDK's method. */
const CALLS: Record<string, (client: PixPaymentsClient, p: Params) => Promise<unknown>> = {
  'payments.create': (c, p) => c.payments.create(without(p, 'idempotencyKey') as CreatePaymentBody, key(p)),
  'payments.get': (c, p) => c.payments.get(String(p.id)),
  'payments.list': (c, p) => c.payments.list(p as ListPaymentsQuery),
  'payments.listAll': (c, p) => drain(c.payments.listAll(p as ListPaymentsQuery)),
  'payments.cancel': (c, p) => c.payments.cancel(String(p.id)),
  'payments.defendDispute': (c, p) => c.payments.defendDispute(String(p.id), String(p.text)),
  'refunds.create': (c, p) =>
    c.refunds.create(String(p.paymentId), without(p, 'paymentId', 'idempotencyKey') as CreateRefundBody, key(p)),
  'refunds.list': (c, p) => c.refunds.list(String(p.paymentId)),
  'refunds.get': (c, p) => c.refunds.get(String(p.paymentId), String(p.refundId)),
  'events.list': (c, p) => c.events.list(p as ListEventsQuery),
  'events.listAll': (c, p) => drain(c.events.listAll(p as ListEventsQuery)),
  'events.get': (c, p) => c.events.get(String(p.id)),
  'events.redeliver': (c, p) => c.events.redeliver(String(p.id)),
  'balanceTransactions.list': (c, p) => c.balanceTransactions.list(p as ListBalanceTransactionsQuery),
  'balanceTransactions.listAll': (c, p) => drain(c.balanceTransactions.listAll(p as ListBalanceTransactionsQuery)),
  // `at`, an instant: the SDK reads the statement of its day in America/Sao_Paulo.
  'statements.retrieve': (c, p) => c.statements.retrieve(p.at === undefined ? String(p.date) : new Date(String(p.at))),
  'sandbox.pay': (c, p) => {
    const body = without(p, 'paymentId');
    return c.sandbox.pay(String(p.paymentId), Object.keys(body).length ? (body as SandboxPayBody) : undefined);
  },
  'sandbox.review': (c, p) => c.sandbox.review(String(p.paymentId)),
  'sandbox.clear': (c, p) => c.sandbox.clear(String(p.paymentId)),
  'sandbox.reject': (c, p) => c.sandbox.reject(String(p.paymentId)),
  'sandbox.failNextRefund': (c, p) => c.sandbox.failNextRefund(String(p.paymentId)),
  'sandbox.med': (c, p) => {
    const body = without(p, 'paymentId');
    return c.sandbox.med(String(p.paymentId), Object.keys(body).length ? (body as SandboxMedBody) : undefined);
  },
};

async function playStep(step: Step, env: ConformanceEnv, saved: Map<string, unknown>): Promise<void> {
  const call = CALLS[step.call];
  if (!call) throw new Error(`unknown call ${step.call}`);
  const client = createClient({ baseUrl: env.PIX_BASE_URL, token: step.token ?? env.PIX_TOKEN });
  const params = resolve(step.params, saved, env) as Params;
  if (step.error) {
    const outcome = await call(client, params).then(
      (result) => new Error(`expected ${step.error!.status}, got ${JSON.stringify(result)}`),
      (err: unknown) => err,
    );
    if (!(outcome instanceof PixApiError)) throw outcome;
    const got = { status: outcome.statusCode, message: outcome.message };
    const why = mismatch(step.error, got);
    if (why) throw new Error(`error ${why}`);
    return;
  }
  const expected = resolve(step.expect ?? null, saved, env);
  const deadline = Date.now() + (step.poll?.timeoutMs ?? 0);
  let result = await call(client, params);
  let why = mismatch(expected, result);
  while (why && step.poll && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, step.poll!.intervalMs));
    result = await call(client, params);
    why = mismatch(expected, result);
  }
  if (why) throw new Error(`${why}${step.poll ? ` (after ${step.poll.timeoutMs} ms)` : ''}`);
  if (step.save) saved.set(step.save, result);
}

function checkWebhook(webhook: WebhookCase, secret: string): void {
  let event: unknown;
  try {
    event = webhooks.verify(Buffer.from(webhook.body, 'utf8'), webhook.headers, secret, { now: webhook.now });
  } catch (err) {
    if (webhook.error && err instanceof WebhookVerificationError) return;
    throw err;
  }
  if (webhook.error) throw new Error(`verified, but should have been refused: ${JSON.stringify(event)}`);
  const why = mismatch(webhook.expect ?? null, event);
  if (why) throw new Error(why);
}

/**
 * Plays the scenario and the webhook cases, logging `ok <name>` per step; throws at the first
 * failure with `FAIL <name>: <why>`.
 */
export async function playConformance(env: ConformanceEnv, log: (line: string) => void): Promise<void> {
  const read = <T>(file: string) => JSON.parse(fs.readFileSync(path.join(env.PIX_CONFORMANCE_DIR, file), 'utf8')) as T;
  const scenario = read<{ steps: Step[] }>('scenario.json');
  const hooks = read<{ secret: string; cases: WebhookCase[] }>('webhooks.json');
  const saved = new Map<string, unknown>();
  const checks = [
    ...scenario.steps.map((step) => ({ name: step.name, run: () => playStep(step, env, saved) })),
    ...hooks.cases.map((c) => ({ name: `webhook: ${c.name}`, run: async () => checkWebhook(c, hooks.secret) })),
  ];
  for (const check of checks) {
    try {
      await check.run();
    } catch (err) {
      throw new Error(`FAIL ${check.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    log(`ok ${check.name}`);
  }
}
