import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DashboardTexts } from '@pix/contracts';
import { freePort, ROOT } from '@pix/devstack';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { sharedStack } from '../support/stack';

interface EventList {
  items: { id: string; type: string; status: string }[];
}
interface EventDetail {
  attempts: { outcome: string | null; statusCode: number | null }[];
}
interface Delivery {
  body: string;
  headers: Record<string, string>;
}

/**
 * The PHP snippet the dashboard's Webhooks page shows, run as a merchant would paste it: the
 * endpoint of a PHP server (php -S) that receives the stack's own deliveries. It must verify a
 * real signed webhook (answering 200, the event on record as delivered) and refuse that same
 * delivery with its body changed (400), so the page cannot show code that does not work.
 */
describe("the dashboard's PHP webhook snippet, against real deliveries", () => {
  const stack = sharedStack();
  let store: StoreCredentials;
  let dir: string;
  let server: ChildProcess;
  let endpoint: string;
  const file = (name: string) => path.join(dir, name);

  beforeAll(async () => {
    store = await createStore(stack, 'PHP snippet');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pix-php-snippet-'));
    // The snippet as shown, after the package's autoload and a line that keeps each request as it
    // came (to replay it), before a line that records what the snippet verified.
    fs.writeFileSync(
      file('index.php'),
      `<?php
declare(strict_types=1);
require ${JSON.stringify(path.join(ROOT, 'clients/php/autoload.php'))};
file_put_contents(${JSON.stringify(file('last.json'))}, json_encode(['body' => file_get_contents('php://input'), 'headers' => getallheaders()]));
${DashboardTexts.webhooks.sdkSnippets.php.code}
file_put_contents(${JSON.stringify(file('verified.log'))}, $evento->event . ' ' . $evento->id . "\\n", FILE_APPEND);
`,
    );
    const port = await freePort();
    server = spawn('php', ['-S', `127.0.0.1:${port}`, file('index.php')], {
      env: { ...process.env, PIX_WEBHOOK_SECRET: store.webhookSecret },
      stdio: 'ignore',
    });
    endpoint = `http://127.0.0.1:${port}/webhooks/pix`;
    // Up once it answers anything (an unsigned probe: 400).
    await eventually(
      () =>
        fetch(endpoint, { method: 'POST' }).then(
          (res) => res.status,
          () => 0,
        ),
      (status) => status === 400,
      10_000,
    );
  });
  afterAll(() => {
    server?.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("verifies the stack's signed payment.created (200, delivered) and refuses it with its body changed (400)", async () => {
    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 12.34, webhookUrl: endpoint },
    });
    expect(created.status).toBe(200);
    const paymentId = created.body.id;

    const events = await eventually(
      async () =>
        (
          await api<EventList>(stack.gatewayUrl, 'GET', `/public-api/v1/events?paymentId=${paymentId}`, {
            token: store.token,
          })
        ).body,
      (list) => list.items.length === 1 && list.items[0]!.status !== 'pending',
    );
    expect(events.items[0]).toMatchObject({ type: 'payment.created', status: 'delivered' });
    const detail = await api<EventDetail>(stack.gatewayUrl, 'GET', `/public-api/v1/events/${events.items[0]!.id}`, {
      token: store.token,
    });
    expect(detail.body.attempts).toEqual([expect.objectContaining({ outcome: 'success', statusCode: 200 })]);
    expect(fs.readFileSync(file('verified.log'), 'utf8')).toBe(`payment.created ${paymentId}\n`);

    // The delivery replayed as it came verifies again; with the amount changed it is refused.
    const delivery = JSON.parse(fs.readFileSync(file('last.json'), 'utf8')) as Delivery;
    const headers = Object.fromEntries(
      Object.entries(delivery.headers).filter(([name]) => /^(webhook-|content-type$)/i.test(name)),
    );
    expect(Object.keys(headers).map((h) => h.toLowerCase())).toEqual(
      expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']),
    );
    expect((await fetch(endpoint, { method: 'POST', headers, body: delivery.body })).status).toBe(200);
    const tampered = delivery.body.replace('"amount":12.34', '"amount":1234');
    expect(tampered).not.toBe(delivery.body);
    expect((await fetch(endpoint, { method: 'POST', headers, body: tampered })).status).toBe(400);
    expect(fs.readFileSync(file('verified.log'), 'utf8')).toBe(
      `payment.created ${paymentId}\npayment.created ${paymentId}\n`,
    );
  }, 60_000);
});
