import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ErrorMessages } from '@pix/contracts';
import type { AuthCache } from './auth-cache';
import { sendError } from './http-errors';
import { hashToken } from './stores';

/** The store a request speaks for; set by requireStore, never taken from the request itself. */
export interface AuthedLocals {
  storeId: string;
}

export interface RateLimit {
  /** Requests a token may make per window. */
  requests: number;
  windowMs: number;
}

/**
 * Bearer auth (spec 5): 401 without a usable token, 403 for a deactivated store; then the rate
 * limit per token (429 with Retry-After). The limiter lives in this replica's memory: with N
 * replicas behind a balancer a token may make up to N times the configured rate.
 */
export function requireStore(cache: AuthCache, rateLimit: RateLimit): RequestHandler {
  const limiter = new RateLimiterMemory({
    points: rateLimit.requests,
    duration: Math.max(1, Math.round(rateLimit.windowMs / 1000)),
  });
  return async (req, res, next) => {
    const header = (req.get('authorization') ?? '').trim();
    const match = /^Bearer(?:[ \t]+(.*))?$/i.exec(header);
    const token = match?.[1]?.trim() ?? '';
    if (header === '' || (match && token === '')) return sendError(res, 401, ErrorMessages.bearerMissing);
    if (!match) return sendError(res, 401, ErrorMessages.tokenInvalid);
    const result = await cache.authenticate(token);
    if (!result.ok) {
      return result.reason === 'store_inactive'
        ? sendError(res, 403, ErrorMessages.storeInactive)
        : sendError(res, 401, ErrorMessages.tokenInvalid);
    }
    try {
      await limiter.consume(hashToken(token));
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      res.set('Retry-After', String(Math.max(1, Math.ceil(refusal.msBeforeNext / 1000))));
      return sendError(res, 429, ErrorMessages.rateLimited);
    }
    (res.locals as AuthedLocals).storeId = result.storeId;
    next();
  };
}
