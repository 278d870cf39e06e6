import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The merchant's endpoint: answers every delivery 200 at once and notes when each payment's
 * payment.created, first payment.status_changed and first refund.succeeded arrived
 * (performance.now() of this process).
 */
export class WebhookReceiver {
  readonly created = new Map<string, number>();
  readonly statusChanged = new Map<string, number>();
  /** By payment id: the bench refunds each payment once. */
  readonly refundSucceeded = new Map<string, number>();
  /** Deliveries of an event already received (at-least-once delivery allows them). */
  duplicates = 0;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200).end();
        receiver.note(Buffer.concat(chunks).toString('utf8'), at);
      });
    });
    return receiver;
  }

  private note(body: string, at: number): void {
    let event: { event?: unknown; id?: unknown; paymentId?: unknown };
    try {
      event = JSON.parse(body) as typeof event;
    } catch {
      return;
    }
    const id = event.event === 'refund.succeeded' ? event.paymentId : event.id;
    if (typeof id !== 'string') return;
    const seen =
      event.event === 'payment.created'
        ? this.created
        : event.event === 'payment.status_changed'
          ? this.statusChanged
          : event.event === 'refund.succeeded'
            ? this.refundSucceeded
            : null;
    if (!seen) return;
    if (seen.has(id)) this.duplicates++;
    else seen.set(id, at);
  }

  /** Waits until every id has arrived in `seen` or the deadline (performance.now()) passes. */
  async waitFor(seen: Map<string, number>, ids: readonly string[], deadline: number): Promise<void> {
    while (performance.now() < deadline && ids.some((id) => !seen.has(id))) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
