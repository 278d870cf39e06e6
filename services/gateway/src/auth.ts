import type { RequestHandler } from 'express';
import { ErrorMessages } from '@pix/contracts';
import { sendError } from './http-errors';
import { authenticate } from './stores';

/** The store a request speaks for; set by requireStore, never taken from the request itself. */
export interface AuthedLocals {
  storeId: string;
}

/** Bearer auth (spec 5): 401 without a usable token, 403 for a deactivated store. */
export const requireStore: RequestHandler = async (req, res, next) => {
  const header = (req.get('authorization') ?? '').trim();
  const match = /^Bearer(?:[ \t]+(.*))?$/i.exec(header);
  const token = match?.[1]?.trim() ?? '';
  if (header === '' || (match && token === '')) return sendError(res, 401, ErrorMessages.bearerMissing);
  if (!match) return sendError(res, 401, ErrorMessages.tokenInvalid);
  const result = await authenticate(token);
  if (!result.ok) {
    return result.reason === 'store_inactive'
      ? sendError(res, 403, ErrorMessages.storeInactive)
      : sendError(res, 401, ErrorMessages.tokenInvalid);
  }
  (res.locals as AuthedLocals).storeId = result.storeId;
  next();
};
