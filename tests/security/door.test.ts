import { randomBytes, randomUUID } from 'node:crypto';
import { ErrorMessages } from '@pix/contracts';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandCounts, commandsBetween, total } from '../support/db-commands';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { metric } from '../webhooks/helpers';

/**
 * The public door: refused bearer tokens are counted per client address (here from
 * X-Forwarded-For, which TRUST_PROXY=1 believes, as behind one load balancer). An unknown token
 * costs one database read at most; past 100 refused tokens a minute an address gets 429s that
 * cost none, while a valid token from the same address is still served. Counts, never timings:
 * the database reads are the gateway's db_commands_total (the driver's command monitoring).
 */
const LIST = '/public-api/v1/payments?limit=1';
const randomToken = () => `pxt_${randomBytes(32).toString('base64url')}`;
let stack: PrivateStack;
let store: StoreCredentials;

beforeAll(async () => {
  stack = await startPrivateStack({ services: ['payments', 'gateway'], env: { TRUST_PROXY: '1' } });
  store = await createStore(stack, 'Door store');
});
afterAll(() => stack.stop());

const from = (address: string, token: string) =>
  api<{ statusCode: number; message: string }>(stack.gatewayUrl, 'GET', LIST, {
    token,
    headers: { 'x-forwarded-for': address },
  });

/** The gateway's reads of the tokens collection so far. */
async function tokenReads(): Promise<number> {
  const counts = await commandCounts({ opsUrls: { gateway: stack.opsUrls.gateway } });
  return total(new Map([...counts].filter(([key]) => key.endsWith(' tokens'))));
}

it('reads the database once for an unknown token, however often it is presented', async () => {
  const before = await tokenReads();
  const token = randomToken();
  for (let i = 0; i < 5; i++) {
    expect(await from('198.51.100.1', token)).toMatchObject({
      status: 401,
      body: { statusCode: 401, message: ErrorMessages.tokenInvalid },
    });
  }
  expect((await tokenReads()) - before).toBe(1);
});

it('answers 429 past 100 refused tokens from one address, without reading the database, and still serves a valid token', async () => {
  const attacker = '203.0.113.7';
  expect((await from(attacker, store.token)).status).toBe(200);
  const before = await tokenReads();
  const counts = await commandCounts({ opsUrls: { gateway: stack.opsUrls.gateway } });
  const statuses = new Map<number, number>();
  const valid: number[] = [];
  const retryAfter = new Set<string | null>();
  const CONCURRENCY = 10;
  for (let sent = 0; sent < 600; sent += CONCURRENCY) {
    const batch = await Promise.all(Array.from({ length: CONCURRENCY }, () => from(attacker, randomToken())));
    for (const res of batch) {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429) {
        expect(res.body).toEqual({ statusCode: 429, message: ErrorMessages.authThrottled });
        retryAfter.add(res.headers.get('retry-after'));
      } else {
        expect(res.body).toEqual({ statusCode: 401, message: ErrorMessages.tokenInvalid });
      }
    }
    if (sent % 100 === 0) valid.push((await from(attacker, store.token)).status);
  }
  const refused = statuses.get(401) ?? 0;
  const throttled = statuses.get(429) ?? 0;
  expect(refused + throttled).toBe(600);
  // The limit, give or take the requests in flight together when it was reached.
  expect(refused).toBeGreaterThanOrEqual(100);
  expect(refused).toBeLessThanOrEqual(100 + CONCURRENCY);
  expect(valid).toEqual(Array(6).fill(200));
  for (const seconds of retryAfter) expect(Number(seconds)).toBeGreaterThanOrEqual(1);
  // Every refused token cost one read; none of the 429s did.
  expect((await tokenReads()) - before).toBe(refused);
  process.stdout.write(
    `door: ${refused} × 401, ${throttled} × 429, ${(await tokenReads()) - before} token reads; ` +
      `gateway commands meanwhile: ${total(commandsBetween(counts, await commandCounts({ opsUrls: { gateway: stack.opsUrls.gateway } })))}\n`,
  );

  // Another address is not throttled, and the throttled one is still served with its valid token,
  // and with a token issued now, which this replica has never met (the AUTH bucket told it).
  expect((await from('198.51.100.2', randomToken())).status).toBe(401);
  expect((await from(attacker, store.token)).status).toBe(200);
  const fresh = await admin<{ token: string }>(stack, 'token', 'issue', '--store', store.storeId);
  expect(
    (
      await eventually(
        () => from(attacker, fresh.token),
        (res) => res.status !== 429,
        2000,
      )
    ).status,
  ).toBe(200);
  // A missing token is never a refused authentication: it costs nothing and stays the spec's 401.
  const missing = await api(stack.gatewayUrl, 'GET', LIST, { headers: { 'x-forwarded-for': attacker } });
  expect(missing).toMatchObject({ status: 401, body: { statusCode: 401, message: ErrorMessages.bearerMissing } });
});

it("counts the dashboard's sign-in at the same door", async () => {
  const page = await fetch(`${stack.gatewayUrl}/dashboard/entrar`);
  const nonce = /pix_dashboard_login=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  expect(nonce && csrf).toBeTruthy();
  const signIn = (token: string) =>
    fetch(`${stack.gatewayUrl}/dashboard/entrar`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: `pix_dashboard_login=${nonce}`,
        origin: stack.gatewayUrl,
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': '192.0.2.50',
      },
      body: new URLSearchParams({ token, csrf: csrf! }).toString(),
    });
  for (let i = 0; i < 100; i++) expect((await signIn(randomToken())).status).toBe(401);
  const throttled = await signIn(randomToken());
  expect(throttled.status).toBe(429);
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await throttled.text()).toContain(ErrorMessages.authThrottled);
  // The store's token, which this replica knows, still signs in from that address.
  expect((await signIn(store.token)).status).toBe(303);
});

it('believes no X-Forwarded-For without TRUST_PROXY: every client is its connection', async () => {
  const direct = await startPrivateStack({ services: ['gateway'] });
  try {
    const door = (address: string) =>
      api(direct.gatewayUrl, 'GET', LIST, { token: randomToken(), headers: { 'x-forwarded-for': address } });
    // 100 refusals from "different" addresses all count against 127.0.0.1.
    for (let i = 0; i < 100; i++) expect((await door(`192.0.2.${i}`)).status).toBe(401);
    expect((await door('192.0.2.200')).status).toBe(429);
    // Nor X-Forwarded-Proto: a plain http connection that says https gets no HSTS.
    const page = await fetch(`${direct.gatewayUrl}/pay/${randomUUID()}`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(page.headers.get('strict-transport-security')).toBeNull();
  } finally {
    await direct.stop();
  }
});

it('tells browsers to keep to https when the request came over it through the trusted proxy', async () => {
  const over = (proto: string) =>
    fetch(`${stack.gatewayUrl}/pay/${randomUUID()}`, {
      headers: { 'x-forwarded-proto': proto, 'x-forwarded-for': '198.51.100.77' },
    });
  expect((await over('https')).headers.get('strict-transport-security')).toBe('max-age=31536000');
  expect((await over('http')).headers.get('strict-transport-security')).toBeNull();
  const api = await fetch(`${stack.gatewayUrl}${LIST}`, {
    headers: { 'x-forwarded-proto': 'https', authorization: `Bearer ${store.token}` },
  });
  expect(api.status).toBe(200);
  expect(api.headers.get('strict-transport-security')).toBe('max-age=31536000');
});

/**
 * A guess spread over many addresses (behind the ingress, X-Forwarded-For says whatever the client
 * put before the proxy's own entry): past AUTH_FAILURE_REPLICA_LIMIT refused tokens from all
 * addresses together, tokens memory cannot judge get 429 without a database read, while a valid
 * token, known or freshly issued, is served. And the public routes without a token are limited
 * per address. A stack of its own, for its small limits.
 */
describe('the replica-wide ceiling and the public routes', () => {
  const REPLICA_LIMIT = 50;
  const PUBLIC_LIMIT = 6;
  let small: PrivateStack;
  let owner: StoreCredentials;
  beforeAll(async () => {
    small = await startPrivateStack({
      services: ['payments', 'gateway'],
      env: {
        TRUST_PROXY: '1',
        AUTH_FAILURE_REPLICA_LIMIT: String(REPLICA_LIMIT),
        PUBLIC_RATE_LIMIT_REQUESTS: String(PUBLIC_LIMIT),
      },
    });
    owner = await createStore(small, 'Ceiling store');
  });
  afterAll(() => small.stop());

  const fromAddress = (address: string, token: string) =>
    api<{ statusCode: number; message: string }>(small.gatewayUrl, 'GET', LIST, {
      token,
      headers: { 'x-forwarded-for': address },
    });
  const gatewayCommands = () => commandCounts({ opsUrls: { gateway: small.opsUrls.gateway } });

  it('bounds the database reads of 400 wrong tokens from 400 addresses, and still serves valid tokens', async () => {
    expect((await fromAddress('192.0.2.1', owner.token)).status).toBe(200);
    const before = await gatewayCommands();
    const statuses = new Map<number, number>();
    const CONCURRENCY = 10;
    for (let sent = 0; sent < 400; sent += CONCURRENCY) {
      const batch = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) =>
          fromAddress(`10.${Math.floor((sent + i) / 250)}.${(sent + i) % 250}.9`, randomToken()),
        ),
      );
      for (const res of batch) {
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 429) {
          expect(res.body).toEqual({ statusCode: 429, message: ErrorMessages.authThrottled });
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        } else expect(res.body).toEqual({ statusCode: 401, message: ErrorMessages.tokenInvalid });
      }
    }
    const refused = statuses.get(401) ?? 0;
    expect(refused + (statuses.get(429) ?? 0)).toBe(400);
    expect(refused).toBeGreaterThanOrEqual(REPLICA_LIMIT);
    expect(refused).toBeLessThanOrEqual(REPLICA_LIMIT + CONCURRENCY);
    // Every database command the 400 cost: one read of tokens per 401, none per 429.
    const spent = commandsBetween(before, await gatewayCommands());
    expect([...spent.keys()].every((key) => key.endsWith(' tokens'))).toBe(true);
    expect(total(spent)).toBe(refused);
    process.stdout.write(`replica ceiling: ${refused} × 401, ${400 - refused} × 429, ${total(spent)} commands\n`);

    // A known token from an address never seen, and a token issued now (the AUTH bucket told the
    // replica): both served while every address is throttled.
    expect((await fromAddress('192.0.2.2', owner.token)).status).toBe(200);
    const fresh = await admin<{ token: string }>(small, 'token', 'issue', '--store', owner.storeId);
    const served = await eventually(
      () => fromAddress('192.0.2.3', fresh.token),
      (res) => res.status !== 429,
      2000,
    );
    expect(served.status).toBe(200);
    expect(await metric(small.opsUrls.gateway, 'auth_failures_total', 'limit="replica"')).toBe(400 - refused);
  });

  it('limits the payment page, the QR image and the status stream per address, with 429 and Retry-After', async () => {
    const created = await api<{ id: string }>(small.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: owner.token,
      body: { amount: 10 },
      headers: { 'x-forwarded-for': '192.0.2.10' },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    const controller = new AbortController();
    const visit = (address: string, path: string) =>
      fetch(`${small.gatewayUrl}${path}`, { headers: { 'x-forwarded-for': address }, signal: controller.signal });
    try {
      // One budget for the three routes together: the page, its stream, the image, twice over.
      const answers: number[] = [];
      for (const path of [`/pay/${id}`, `/pay/${id}/events`, `/public-api/v1/qrcodes/${id}.png`]) {
        for (let i = 0; i < 2; i++) answers.push((await visit('203.0.113.50', path)).status);
      }
      expect(answers.every((status) => status !== 429)).toBe(true);
      for (const path of [`/pay/${id}`, `/pay/${id}/events`, `/public-api/v1/qrcodes/${id}.png`]) {
        const refused = await visit('203.0.113.50', path);
        expect(refused.status).toBe(429);
        expect(await refused.json()).toEqual({ statusCode: 429, message: ErrorMessages.rateLimited });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      // Another address, and the page's own script and stylesheet, are not held back.
      expect((await visit('203.0.113.51', `/pay/${id}`)).status).toBe(200);
      expect((await visit('203.0.113.50', '/pay/assets/payment-page.css')).status).toBe(200);
      expect(await metric(small.opsUrls.gateway, 'public_requests_throttled_total', 'route="payment_page"')).toBe(1);
      expect(await metric(small.opsUrls.gateway, 'public_requests_throttled_total', 'route="status_stream"')).toBe(1);
      expect(await metric(small.opsUrls.gateway, 'public_requests_throttled_total', 'route="qr_image"')).toBe(1);
    } finally {
      controller.abort();
    }
  });
});
