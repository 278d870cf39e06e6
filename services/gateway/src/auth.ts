import type { Request, RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ErrorMessages } from '@pix/contracts';
import type { AuthCache, AuthResult } from './auth-cache';
import { clientKey, type AuthFailures } from './auth-failures';
import { sendError } from './http-errors';
import { hashToken } from './storage';

/** The store and mode a request speaks for; set by requireStore, never taken from the request itself. */
export interface AuthedLocals {
  storeId: string;
  livemode: boolean;
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

/** What the door answers a presented token: the token's verdict, or a throttled address's wait. */
export type DoorAnswer = AuthResult | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * The door every presented token passes (the API's bearer auth and the dashboard's login). Refused
 * tokens are counted per client address (req.ip: the connection's address, or X-Forwarded-For as
 * far as TRUST_PROXY trusts it) and over all addresses together on this replica. Past either
 * limit, the address's tokens are judged from memory: one this replica knows to be valid passes as
 * always, one the AUTH bucket said was issued is read from the database as below the limit (a
 * guess never is one), any other is answered 429 without a database read. Below the limits an
 * unknown token costs one read, then none (the negative cache). Past the replica's limit the
 * answer is 429 rather than 401: the token was not looked at, and a valid one the bucket did not
 * announce (issued before the bucket existed) is told to come back, not that it is invalid.
 */
export async function throughTheDoor(
  cache: AuthCache,
  failures: AuthFailures,
  req: Request,
  token: string,
): Promise<DoorAnswer> {
  const key = clientKey(req.ip);
  const tokenHash = hashToken(token);
  const throttled = failures.throttled(key);
  if (throttled !== null) {
    const known = cache.fromMemory(tokenHash);
    if (known?.ok || known?.reason === 'store_inactive') return known;
    if (known === null && cache.wasIssued(tokenHash)) return cache.authenticateHash(tokenHash);
    failures.refused(throttled.scope);
    return { ok: false, reason: 'throttled', retryAfterSeconds: throttled.retryAfterSeconds };
  }
  const result = await cache.authenticateHash(tokenHash);
  if (!result.ok && result.reason === 'token_invalid') failures.failed(key);
  return result;
}

/**
 * Bearer auth (spec 5): 401 without a usable token, 403 for a deactivated store, 429 for an address
 * past its refused tokens (throughTheDoor); then the rate limit per token (429 with Retry-After).
 */
export function requireStore(cache: AuthCache, failures: AuthFailures, limiter: TokenRateLimiter): RequestHandler {
  return async (req, res, next) => {
    const header = (req.get('authorization') ?? '').trim();
    const match = /^Bearer(?:[ \t]+(.*))?$/i.exec(header);
    const token = match?.[1]?.trim() ?? '';
    if (header === '' || (match && token === '')) return sendError(res, 401, ErrorMessages.bearerMissing);
    if (!match) return sendError(res, 401, ErrorMessages.tokenInvalid);
    const result = await throughTheDoor(cache, failures, req, token);
    if (!result.ok && result.reason === 'throttled') {
      res.set('Retry-After', String(result.retryAfterSeconds));
      return sendError(res, 429, ErrorMessages.authThrottled);
    }
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
    (res.locals as AuthedLocals).livemode = result.livemode;
    next();
  };
}
