import type { Request, RequestHandler, Response } from 'express';
import type { PaymentEvent } from '@pix/contracts';
import { DashboardTexts as T, formatBrl, StatusLabels } from '@pix/contracts';
import type { PaymentStatusFeed } from '../payment-page/status-feed';
import { openEventStream } from '../event-stream';
import { refusalAnswer, type StreamLimiter } from '../sse-limits';
import { saoPauloTime, utcTime } from './html/layout';
import type { LivePayment, LiveRefund } from './live-messages';
import { sendJson } from './respond';

/** How often an open stream checks that its session still stands (revoked token, inactive store). */
const SESSION_CHECK_MS = 1000;
/** The browser's wait before it reconnects a dropped stream. */
const RECONNECT_MS = 2000;

/** What the list and the payment page need of a payment event to follow it without a reload. */
function livePayment(
  event: PaymentEvent & { body: { event: 'payment.created' | 'payment.status_changed' } },
): LivePayment {
  const { body, sequence } = event;
  // Its first delivery is on its way as the row appears; the list shows the log's word on reload.
  const webhook = body.webhookUrl ? 'pending' : null;
  return {
    id: body.id,
    event: body.event,
    status: body.status,
    sequence,
    statusLabel: StatusLabels[body.status],
    row: {
      amount: formatBrl(body.amount),
      createdAt: body.createdAt,
      createdAtText: saoPauloTime(body.createdAt),
      createdAtUtc: utcTime(body.createdAt),
      email: body.email,
      webhook,
      webhookLabel: T.webhookStates[webhook ?? 'none'],
    },
  };
}

/**
 * One event as the page's script takes it, as JSON: a payment's change (`payment`), or a refund's
 * (`refund`: the payment page refreshes its refunds and timeline); nothing for a dispute's.
 */
function streamMessage(event: PaymentEvent): string {
  const { body } = event;
  if (body.event === 'payment.created' || body.event === 'payment.status_changed') {
    return `event: payment\ndata: ${JSON.stringify(livePayment({ ...event, body }))}\n\n`;
  }
  // A dispute's events show on the payment's page and the Contestações list at their next load.
  if (body.event !== 'refund.created' && body.event !== 'refund.succeeded' && body.event !== 'refund.failed') return '';
  const refund: LiveRefund = {
    id: event.paymentId,
    event: body.event,
    refundId: body.id,
    status: body.status,
    sequence: event.sequence,
  };
  return `event: refund\ndata: ${JSON.stringify(refund)}\n\n`;
}

/**
 * The store's payments, live (`GET /dashboard/stream`): every PAYMENTS event of the store as this
 * replica's feed follows the stream (no database read), as data: what the pages show of it. It
 * takes a slot of the replica's and the store's stream caps, and ends (telling the page) when the
 * session does: checked every second, as each request checks it.
 */
export function storeStream(options: {
  feed: PaymentStatusFeed;
  streams: StreamLimiter;
  storeOf: (res: Response) => string;
  /** The session's mode: the events of the other mode's payments are not the page's. */
  livemodeOf: (res: Response) => boolean;
  stillValid: (req: Request) => Promise<boolean>;
}): RequestHandler {
  const { feed, streams } = options;
  return (req, res) => {
    const storeId = options.storeOf(res);
    const livemode = options.livemodeOf(res);
    const slot = streams.acquire('dashboard', storeId);
    if (!slot.ok) {
      const { status, retryAfterSeconds } = refusalAnswer(slot.reason);
      res.set('Retry-After', String(retryAfterSeconds));
      return sendJson(res, status, { statusCode: status, message: T.errors.streamsFull });
    }
    openEventStream(res, RECONNECT_MS);
    const { ready, unsubscribe } = feed.subscribeStore(storeId, {
      event: (event: PaymentEvent) => event.body.livemode === livemode && res.write(streamMessage(event)),
      end: () => res.end(),
    });
    // The page hears every event from `ready` on; not followed in time, it reconnects later.
    ready.then(
      () => res.writableEnded || res.write('event: ready\ndata: {}\n\n'),
      () => res.end(),
    );
    const check = setInterval(() => {
      void options.stillValid(req).then((valid) => {
        if (valid) return;
        res.write('event: ended\ndata: {}\n\n');
        res.end();
      });
    }, SESSION_CHECK_MS);
    check.unref();
    res.on('close', () => {
      clearInterval(check);
      unsubscribe();
      slot.release();
    });
  };
}
