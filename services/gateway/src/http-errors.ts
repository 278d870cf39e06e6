import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { DomainError, DomainErrorAnswers, ErrorMessages, type ErrorBody } from '@pix/contracts';
import { isTransient, RpcFailure } from '@pix/messaging';
import type { Logger } from '@pix/observability';

/** Every error leaves the API in the spec's error body (2.4). */
export function sendError(res: Response, statusCode: number, message: string): void {
  const body: ErrorBody = { statusCode, message };
  res.status(statusCode).json(body);
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  sendError(res, 404, ErrorMessages.routeNotFound);
};

/**
 * The last handler of a path, for the methods its routes do not serve: 405 with the Allow header
 * HTTP requires (HEAD comes with GET); OPTIONS is answered with the Allow header alone.
 */
export function methodNotAllowed(...methods: string[]): RequestHandler {
  const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  return (req, res) => {
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') {
      res.status(204).end();
      return;
    }
    sendError(res, 405, ErrorMessages.methodNotAllowed);
  };
}

/**
 * Maps what went wrong to a status: a service's refusal (a domain error's code) to its status and
 * the spec's message, client mistakes to 4xx, outages to 503, bugs to 500 (logged). The only place
 * a domain error becomes an HTTP answer.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof DomainError) {
      const { status, message } = DomainErrorAnswers[err.code](err.params);
      return sendError(res, status, message);
    }
    if (err instanceof RpcFailure) return sendError(res, err.status, err.message);
    if (isTransient(err)) {
      logger.warn({ err }, 'a backend or the database is away for now');
      return sendError(res, 503, ErrorMessages.unavailable);
    }
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return sendError(res, 400, ErrorMessages.malformedJson);
    if (type === 'entity.too.large') return sendError(res, 413, ErrorMessages.payloadTooLarge);
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return sendError(res, 400, ErrorMessages.unsupportedMediaType);
    }
    const status = (err as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendError(res, status, ErrorMessages.malformedJson);
    }
    logger.error({ err }, 'unhandled error');
    sendError(res, 500, ErrorMessages.internal);
  };
}
