import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { randomPorts, RUN_DIR, startService, stopProcesses } from '@pix/devstack';
import { PaymentPageTexts, type PaymentPageUpdate } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { api } from '../support/api';
import { sharedStack } from '../support/stack';

/** Reads Server-Sent Events from a response body: each `status` event's data, in order. */
function statusEvents(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(timeoutMs = 5000): Promise<PaymentPageUpdate> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const block = /(?:^|\n)event: status\ndata: (.*)\n\n/.exec(buffer);
        if (block) {
          buffer = buffer.slice(block.index + block[0].length);
          return JSON.parse(block[1] ?? '') as PaymentPageUpdate;
        }
        if (Date.now() > deadline) throw new Error(`no status event in ${timeoutMs} ms; got: ${buffer}`);
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('stream stalled')), timeoutMs)),
        ]);
        if (chunk.done) throw new Error('stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

/**
 * The hosted payment page over HTTP: what it shows and hides, its headers (a strict CSP, nothing
 * from another origin), and its live status stream (Server-Sent Events fed by PAYMENTS).
 */
describe('GET /pay/{id}', () => {
  const stack = sharedStack();
  let store: StoreCredentials;

  beforeAll(async () => {
    store = await createStore(stack, 'Padaria <Pão & Cia>');
  });

  async function create(amount: number): Promise<{ id: string; qrCopyPaste: string }> {
    const res = await api<{ id: string; qrCopyPaste: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount, email: 'cliente@example.com', observation: 'Pedido secreto', webhookUrl: 'http://127.0.0.1:9/h' },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  it('shows the store, the amount, the QR code and the code, never the e-mail, observation or webhookUrl', async () => {
    const payment = await create(1234.5);
    const res = await fetch(`${stack.gatewayUrl}/pay/${payment.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain('Padaria &lt;Pão &amp; Cia&gt;');
    expect(html).toContain('R$ 1.234,50');
    expect(html).toContain(`src="/public-api/v1/qrcodes/${payment.id}.png"`);
    expect(html).toContain(payment.qrCopyPaste);
    expect(html).toContain(PaymentPageTexts.copy);
    for (const hidden of ['cliente@example.com', 'Pedido secreto', 'http://127.0.0.1:9/h', store.storeId]) {
      expect(html).not.toContain(hidden);
    }
    // Everything it loads is the gateway's own.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/(?!\/)/);
      expect((await fetch(new URL(asset, stack.gatewayUrl))).status).toBe(200);
    }
  });

  it('answers an unknown or malformed id with a 404 page', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await fetch(`${stack.gatewayUrl}/pay/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain(PaymentPageTexts.notFoundTitle);
      expect((await fetch(`${stack.gatewayUrl}/pay/${id}/events`)).status).toBe(404);
    }
  });

  it('tells the customer of a cancel, live and on a new visit, apart from an expiry', async () => {
    const payment = await create(45);
    const controller = new AbortController();
    const res = await fetch(`${stack.gatewayUrl}/pay/${payment.id}/events`, { signal: controller.signal });
    const events = statusEvents(res.body as ReadableStream<Uint8Array>);
    try {
      expect(await events.next()).toEqual({ phase: 'pending', sequence: 1 });
      const cancelled = await api(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${payment.id}/cancel`, {
        token: store.token,
      });
      expect(cancelled.status).toBe(200);
      expect(await events.next()).toEqual({ phase: 'cancelled', sequence: 2 });
    } finally {
      controller.abort();
    }
    const html = await (await fetch(`${stack.gatewayUrl}/pay/${payment.id}`)).text();
    // What the page shows (every phase's text also rides in data-texts, for the page's script).
    const shown = (id: string) => new RegExp(`<p id="${id}"[^>]*>([^<]*)</p>`).exec(html)?.[1];
    expect(shown('phase')).toBe(PaymentPageTexts.phases.cancelled);
    expect(shown('detail')).toBe(PaymentPageTexts.details.cancelled);
    expect(html).toContain('data-phase="cancelled"');
  });

  it('streams the current state on connect, then each change of the payment', async () => {
    const payment = await create(30);
    const controller = new AbortController();
    const res = await fetch(`${stack.gatewayUrl}/pay/${payment.id}/events`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = statusEvents(res.body as ReadableStream<Uint8Array>);
    try {
      expect(await events.next()).toEqual({ phase: 'pending', sequence: 1 });
      const held = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payment.id}/review`, {
        token: store.token,
      });
      expect(held.status).toBe(200);
      expect(await events.next()).toEqual({ phase: 'review', sequence: 2 });
      await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payment.id}/reject`, {
        token: store.token,
      });
      expect(await events.next(10_000)).toEqual({ phase: 'not_approved', sequence: 3 });
    } finally {
      controller.abort();
    }

    // A new connection starts from the state as it is now (the refund's own events, which the page
    // does not show, count in the payment's sequence too).
    const again = await fetch(`${stack.gatewayUrl}/pay/${payment.id}/events`);
    const current = statusEvents(again.body as ReadableStream<Uint8Array>);
    const now = await current.next();
    expect(now).toEqual({ phase: 'not_approved', sequence: expect.any(Number) });
    expect(now.sequence).toBeGreaterThanOrEqual(3);
    await current.cancel();
  });

  it('streams to the pages open on every gateway replica (each follows PAYMENTS itself)', async () => {
    const dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
    const ports = await randomPorts();
    const replica = await startService(
      'gateway',
      { dir, ports, detached: false, secretsFile: stack.secretsFile },
      stack,
      stack.mongoUrl,
    );
    const controller = new AbortController();
    try {
      const payment = await create(18);
      const streams = await Promise.all(
        [stack.gatewayUrl, `http://127.0.0.1:${ports.gateway}`].map(async (url) => {
          const res = await fetch(`${url}/pay/${payment.id}/events`, { signal: controller.signal });
          expect(res.status).toBe(200);
          return statusEvents(res.body as ReadableStream<Uint8Array>);
        }),
      );
      for (const stream of streams) expect(await stream.next()).toEqual({ phase: 'pending', sequence: 1 });
      const paid = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payment.id}/pay`, {
        token: store.token,
      });
      expect(paid.status).toBe(200);
      for (const stream of streams) expect(await stream.next()).toEqual({ phase: 'approved', sequence: 2 });
    } finally {
      controller.abort();
      await stopProcesses([replica]);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
