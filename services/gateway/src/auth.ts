import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ErrorMessages } from '@pix/contracts';
import type { AuthCache } from './auth-cache';
import { sendError } from './http-errors';
import { hashToken } from './storage';

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
 * The rate limit per token, counted by the token's hash. One instance serves the API's bearer auth
 * and the dashboard's sessions, so a merchant's dashboard requests count against the same limit.
 * It lives in this replica's memory: with N replicas behind a balancer a token may make up to N
 * times the configured rate.
 */
export class TokenRateLimiter {
  private readonly limiter: RateLimiterMemory;

  constructor(rateLimit: RateLimit) {
    this.limiter = new RateLimiterMemory({
      points: rateLimit.requests,
      duration: Math.max(1, Math.round(rateLimit.windowMs / 1000)),
    });
  }

  /** Counts one request; when over the limit, the seconds to wait before the next one. */
  async consume(tokenHash: string): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
    try {
      await this.limiter.consume(tokenHash);
      return { ok: true };
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)) };
    }
  }
}

/**
 * Bearer auth (spec 5): 401 without a usable token, 403 for a deactivated store; then the rate
 * limit per token (429 with Retry-After).
 */
export function requireStore(cache: AuthCache, limiter: TokenRateLimiter): RequestHandler {
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
    const allowed = await limiter.consume(hashToken(token));
    if (!allowed.ok) {
      res.set('Retry-After', String(allowed.retryAfterSeconds));
      return sendError(res, 429, ErrorMessages.rateLimited);
    }
    (res.locals as AuthedLocals).storeId = result.storeId;
    next();
  };
}
