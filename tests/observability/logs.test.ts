import fs from 'node:fs';
import path from 'node:path';
import { SERVICE_NAMES } from '@pix/devstack';
import { admin, createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

type LogLine = Record<string, unknown> & { service: string; msg: string };

/**
 * The services' own log files after real traffic: JSON lines with trace ids and request ids, and
 * never a token, a webhook secret or a customer's e-mail in clear, whatever the request carried.
 */
describe('logs', () => {
  const webhooks = new WebhookReceiver();
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({ env: { LOG_LEVEL: 'debug' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await webhooks.stop();
  });

  function logText(): string {
    return SERVICE_NAMES.map((name) => fs.readFileSync(path.join(stack.dir, 'logs', `${name}.log`), 'utf8')).join('');
  }

  function logLines(): LogLine[] {
    return logText()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  }

  it('carry trace and request ids and keep secrets and e-mails out', async () => {
    const webhookUrl = await webhooks.start();
    const email = 'maria.silva@example.com';
    const store = await createStore(stack, 'Logged store');
    const requestId = 'req-logs-test-1';

    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 15, email, webhookUrl },
      headers: { 'x-request-id': requestId },
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-request-id')).toBe(requestId);
    const generated = await api(stack.gatewayUrl, 'GET', `/api-public/payments?email=${email}&token=${store.token}`, {
      token: store.token,
    });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api(stack.gatewayUrl, 'GET', '/api-public/payments', { token: `${store.token}x` })).status).toBe(401);
    // The PSP simulator's payer pays, and the PSP calls the adapter's callback endpoint back.
    await admin(stack, 'sandbox', 'pay', created.body.id);
    await eventually(
      async () => webhooks.events(created.body.id).length,
      (n) => n === 2,
    );

    const lines = await eventually(
      async () => logLines(),
      (all) =>
        all.some((l) => l.service === 'webhook-dispatcher' && l.msg === 'webhook delivered') &&
        all.some((l) => l.service === 'pix-provider-adapter' && l.msg === 'http request'),
    );
    const text = logText();
    for (const secret of [store.token, store.webhookSecret, email, encodeURIComponent(email)]) {
      expect(text).not.toContain(secret);
    }

    const access = lines.find((l) => l.msg === 'http request' && l.request_id === requestId);
    expect(access).toMatchObject({
      service: 'gateway',
      level: 'info',
      route: '/public-api/v1/payments',
      statusCode: 200,
      req: { method: 'POST', path: '/public-api/v1/payments', headers: { authorization: '[redacted]' } },
    });
    expect(access?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(access?.span_id).toMatch(/^[0-9a-f]{16}$/);
    // The rest of the flow, in other services, shares the request's trace.
    const sameTrace = lines.filter((l) => l.trace_id === access?.trace_id);
    expect(new Set(sameTrace.map((l) => l.service))).toContain('webhook-dispatcher');
    // The PSP's callback reached the adapter over mutual TLS, logged as a request like any other.
    const callback = lines.find((l) => l.service === 'pix-provider-adapter' && l.msg === 'http request');
    expect(callback).toMatchObject({ route: '/psp/callbacks/pix', statusCode: 200, req: { method: 'POST' } });
    const delivered = lines.filter((l) => l.msg === 'webhook delivered');
    expect(delivered.every((l) => typeof l.trace_id === 'string')).toBe(true);
  });
});
