import type { RequestHandler } from 'express';
import { ErrorMessages } from '@pix/contracts';
import { Counter, type Registry } from '@pix/observability';
import { clientKey } from './auth-failures';
import { FixedWindows, secondsUntil } from './fixed-windows';
import { sendError } from './http-errors';

/** The public routes without a token that the limit guards. */
export type PublicRoute = 'payment_page' | 'qr_image' | 'status_stream';

export interface PublicLimit {
  /** Requests one client address may make per window to the guarded routes together, on each replica. */
  requests: number;
  windowMs: number;
  /** Addresses tracked at once; the least recently seen are forgotten first. */
  maxAddresses?: number;
}

/**
 * Requests per client address (clientKey of req.ip: TRUST_PROXY decides what it is) to the public
 * routes that need no token: the payment page, the QR image and the page's status stream. Each
 * costs a read of payments (and the stream a subscription), so one address may not make them
 * without bound; one budget covers the three, since a customer's visit uses them together. Past it
 * the address is answered 429 with Retry-After until its window ends. Fixed windows in this
 * replica's memory, at most `maxAddresses` of them.
 */
export class PublicLimiter {
  private readonly windows: FixedWindows;
  private readonly refused: Counter<'route'>;

  constructor(
    private readonly limit: PublicLimit,
    registry: Registry,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new FixedWindows(limit.windowMs, limit.maxAddresses ?? 50_000, now);
    this.refused = new Counter({
      name: 'public_requests_throttled_total',
      help: 'Requests to the public routes without a token answered 429, their address past its limit, by route',
      labelNames: ['route'],
      registers: [registry],
    });
    for (const route of ['payment_page', 'qr_image', 'status_stream']) this.refused.inc({ route }, 0);
  }

  /** Counts one request of the address; the seconds it must wait when it is past the limit, else null. */
  take(key: string): number | null {
    const window = this.windows.add(key);
    return window.count <= this.limit.requests ? null : secondsUntil(window.endsAt, this.now());
  }

  /** The middleware in front of a guarded route: 429 `rateLimited`, with Retry-After, past the limit. */
  guard(route: PublicRoute): RequestHandler {
    return (req, res, next) => {
      const wait = this.take(clientKey(req.ip));
      if (wait === null) return next();
      this.refused.inc({ route });
      res.set('Retry-After', String(wait));
      sendError(res, 429, ErrorMessages.rateLimited);
    };
  }
}
