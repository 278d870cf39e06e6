import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { SERVICE_NAMES } from '@pix/devstack';
import { admin, createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { sharedStack } from '../support/stack';

/** `promtool check metrics`: Prometheus' own linter for the exposition format and naming rules. */
function promtoolCheckMetrics(text: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = execFile('promtool', ['check', 'metrics'], (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
    child.stdin?.end(text);
  });
}

async function metricsOf(opsUrl: string): Promise<string> {
  const res = await fetch(`${opsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

describe('metrics on the ops port', () => {
  const stack = sharedStack();

  beforeAll(async () => {
    // Traffic through every service, so the labelled series exist.
    const store = await createStore(stack, 'Metrics store');
    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/api-public/payments', {
      token: store.token,
      body: { amount: 7 },
    });
    expect(created.status).toBe(200);
    await api(stack.gatewayUrl, 'GET', `/api-public/payments/${created.body.id}`, { token: store.token });
    await api(stack.gatewayUrl, 'GET', `/api-public/payments/${randomUUID()}`, { token: store.token });
    await api(stack.gatewayUrl, 'GET', '/no/such/route');
    await admin(stack, 'sandbox', 'pay', created.body.id);
  });

  it.each(SERVICE_NAMES)('%s passes promtool check metrics', async (service) => {
    const text = await metricsOf(stack.opsUrls[service]);
    const { code, output } = await promtoolCheckMetrics(text);
    expect(output).toBe('');
    expect(code).toBe(0);
    expect(text).toContain(`process_cpu_seconds_total{service="${service}"}`);
    for (const name of ['http_requests_total', 'nats_request_duration_seconds', 'jetstream_consumer_pending']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('labels HTTP requests by route pattern, never by raw id', async () => {
    const text = await metricsOf(stack.opsUrls.gateway);
    const routes = [...text.matchAll(/^http_requests_total\{([^}]*)\}/gm)].map((m) => m[1] ?? '');
    expect(routes.some((l) => /route="\/api-public\/payments\/:id",status_code="200"/.test(l))).toBe(true);
    // A 404 answered by payments travels back out of the router as an error: still its pattern.
    expect(routes.some((l) => /route="\/api-public\/payments\/:id",status_code="404"/.test(l))).toBe(true);
    expect(routes.some((l) => /method="POST",route="\/api-public\/payments",status_code="200"/.test(l))).toBe(true);
    expect(routes.some((l) => /route="unmatched",status_code="404"/.test(l))).toBe(true);
    expect(text).not.toMatch(/route="[^"]*[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api-public\/payments"/);
  });

  it('times NATS requests by subject and outcome, and reads consumer lag and redeliveries', async () => {
    const gateway = await metricsOf(stack.opsUrls.gateway);
    expect(gateway).toMatch(/nats_request_duration_seconds_count\{[^}]*subject="payments\.create",outcome="ok"/);
    expect(gateway).toMatch(/nats_request_duration_seconds_count\{[^}]*subject="payments\.get",outcome="refused"/);
    const dispatcher = await eventually(
      () => metricsOf(stack.opsUrls['webhook-dispatcher']),
      (text) => /jetstream_consumer_pending\{[^}]*stream="PAYMENTS"/.test(text),
    );
    expect(dispatcher).toMatch(/# TYPE jetstream_consumer_redeliveries_total counter/);
    const payments = await eventually(
      () => metricsOf(stack.opsUrls.payments),
      (text) => /jetstream_consumer_pending\{[^}]*stream="PIX"/.test(text),
    );
    expect(payments).toMatch(/nats_request_duration_seconds_count\{[^}]*subject="pix\.charges\.create",outcome="ok"/);
  });
});
