import express, { type Response, type Router } from 'express';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  DomainError,
  isPaymentId,
  pagePhase,
  PaymentPageTexts as T,
  PaymentsRpc,
  type PaymentPageUpdate,
  type PaymentPublicView,
} from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import { methodNotAllowed } from '../http-errors';
import { openEventStream } from '../event-stream';
import { refusalAnswer, type StreamLimiter } from '../sse-limits';
import type { PublicLimiter } from '../public-limits';
import type { Stores } from '../storage';
import { browserScript, serveScript } from '../pages/browser-scripts';
import { PAGE_STYLE } from './assets';
import { errorPage, PAGE_CSP, paymentPage } from './html';
import type { PaymentStatusFeed } from './status-feed';

/** What the browser's EventSource waits before reconnecting after the stream ends. */
const RECONNECT_MS = 1000;

function sendPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': PAGE_CSP,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(html);
}

/**
 * The hosted payment page, `GET /pay/{id}`, public like the QR image (the id is an unguessable
 * UUID), and its live status, `GET /pay/{id}/events` (Server-Sent Events). Both read the payment
 * once, by id, through payments.public-view; the stream then carries the PAYMENTS events of that
 * payment as this replica's feed receives them. Both count against the client address's limit on
 * the public routes (public-limits.ts); the page's script and stylesheet do not.
 */
export function paymentPageRouter(options: {
  nc: NatsConnection;
  rpcTimeoutMs: number;
  feed: PaymentStatusFeed;
  /** Open streams count against the replica's and the payment's store's caps. */
  streams: StreamLimiter;
  /** The page shows the store's name. */
  stores: Pick<Stores, 'name'>;
  /** Requests per client address to the page and its stream (with the QR image). */
  limiter: PublicLimiter;
}): Router {
  const { nc, rpcTimeoutMs, feed, streams, stores, limiter } = options;
  const router = express.Router();

  /** The payment as the page may show it; null when there is no such payment. */
  async function readView(id: string): Promise<PaymentPublicView | null> {
    if (!isPaymentId(id)) return null;
    try {
      return await callRpc(nc, PaymentsRpc.publicView, { id }, rpcTimeoutMs);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'payment_not_found') return null;
      throw err;
    }
  }

  const pageScript = browserScript('payment-page');
  const scriptPath = `/assets/${pageScript.name}`;
  const script = `/pay${scriptPath}`;
  router.get(scriptPath, serveScript(pageScript));
  router.get('/assets/payment-page.css', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/css').send(PAGE_STYLE);
  });

  // Each guard runs before its route's handler (registered first, it passes on or answers 429).
  router.get('/:id', limiter.guard('payment_page'));
  router.get('/:id/events', limiter.guard('status_stream'));

  router.get('/:id', async (req, res) => {
    let view: PaymentPublicView | null;
    try {
      view = await readView(req.params.id);
    } catch {
      return sendPage(res, 503, errorPage(T.unavailableTitle, T.unavailableDetail, script));
    }
    if (!view) return sendPage(res, 404, errorPage(T.notFoundTitle, T.notFoundDetail, script));
    const storeName = await stores.name(view.storeId);
    sendPage(
      res,
      200,
      paymentPage(
        {
          id: view.id,
          storeName: storeName ?? '',
          amount: view.amount,
          phase: pagePhase(view.status, view.pixReceived, view.cancelled),
          qrCopyPaste: view.qrCopyPaste,
          expiresAt: view.expiresAt,
          sequence: view.sequence,
        },
        script,
      ),
    );
  });

  router.get('/:id/events', async (req, res) => {
    const id = req.params.id;
    // Subscribed before the read, so no event falls between the two; what the read already shows
    // (a sequence not above its own) is dropped.
    const early: PaymentPageUpdate[] = [];
    let sent = -1;
    let streaming = false;
    const send = (update: PaymentPageUpdate) => {
      if (update.sequence <= sent) return;
      sent = update.sequence;
      res.write(`event: status\ndata: ${JSON.stringify(update)}\n\n`);
    };
    const { ready, unsubscribe } = feed.subscribe(id, {
      update: (update) => (streaming ? send(update) : early.push(update)),
      end: () => res.end(),
    });
    res.on('close', unsubscribe);

    let view: PaymentPublicView | null;
    try {
      await ready;
      view = await readView(id);
    } catch {
      unsubscribe();
      return res.status(503).type('text/plain').send(T.unavailableTitle);
    }
    if (!view) {
      unsubscribe();
      return res.status(404).type('text/plain').send(T.notFoundTitle);
    }
    // The page closed, or the gateway began stopping, while the payment was read.
    if (res.destroyed || res.writableEnded) return;
    const slot = streams.acquire('payment_page', view.storeId);
    if (!slot.ok) {
      unsubscribe();
      // The page's script retries a refused stream after a pause; the page itself still works.
      const { status, retryAfterSeconds } = refusalAnswer(slot.reason);
      return res
        .status(status)
        .set('Retry-After', String(retryAfterSeconds))
        .type('text/plain')
        .send(T.unavailableTitle);
    }
    res.on('close', slot.release);
    openEventStream(res, RECONNECT_MS);
    send({ phase: pagePhase(view.status, view.pixReceived, view.cancelled), sequence: view.sequence });
    streaming = true;
    for (const update of early) send(update);
  });

  for (const served of [scriptPath, '/assets/payment-page.css', '/:id', '/:id/events']) {
    router.all(served, methodNotAllowed('GET'));
  }
  return router;
}
