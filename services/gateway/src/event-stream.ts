import type { Response } from 'express';

/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 20_000;

/**
 * Answers a request with a Server-Sent Events stream (the payment page's and the dashboard's):
 * its headers, sent at once, the browser's reconnection delay, and a keep-alive comment that stops
 * when the stream closes.
 */
export function openEventStream(res: Response, reconnectMs: number): void {
  res.status(200).set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
    'X-Content-Type-Options': 'nosniff',
  });
  res.flushHeaders();
  res.write(`retry: ${reconnectMs}\n\n`);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
  keepAlive.unref();
  res.on('close', () => clearInterval(keepAlive));
}
