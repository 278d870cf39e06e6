import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

/** An answer: a status code, or a status code with headers (a redirect's Location, say) and a body. */
export type ReceiverAnswer = number | { status: number; headers?: Record<string, string>; body?: string };

/**
 * A merchant's webhook endpoint on loopback that records every delivery. `respond` decides each
 * answer (200 by default), so tests can fail, redirect, delay or hang deliveries.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (hook: ReceivedWebhook) => ReceiverAnswer | Promise<ReceiverAnswer> = () => 200;
  private server: http.Server | undefined;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body) as Record<string, unknown>;
        } catch {
          // recorded as text only
        }
        const hook = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body,
          json,
          at: Date.now(),
        };
        this.received.push(hook);
        void Promise.resolve(this.respond(hook)).then((answer) =>
          typeof answer === 'number'
            ? res.writeHead(answer).end()
            : res.writeHead(answer.status, answer.headers).end(answer.body),
        );
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** A payment's webhooks (its own, whose `id` is the payment's, and its refunds' and disputes', whose `paymentId` is). */
  events(paymentId: string, event?: string): ReceivedWebhook[] {
    return this.received.filter(
      (h) =>
        (h.json.id === paymentId ||
          (/^(refund\.|payment\.dispute_)/.test(String(h.json.event)) && h.json.paymentId === paymentId)) &&
        (event === undefined || h.json.event === event),
    );
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
