import type { Response } from 'express';
import { DomainError, DomainErrorAnswers, ErrorMessages } from '@pix/contracts';
import { isTransient, RpcFailure } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { DASHBOARD_CSP } from './html/layout';

/** The request's cookies by name (the dashboard reads two; no cookie library for that). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

/** A dashboard page, with the headers every page carries. */
export function sendHtml(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': DASHBOARD_CSP,
      'Cache-Control': 'no-store',
      // Same-origin requests keep their Referer (the CSRF check's fallback); no other site gets one.
      'Referrer-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(html);
}

/** An answer to the page's script. */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' }).json(body);
}

/** An error as the merchant is told it: a refusal's status and message, 503 for an outage, 500 (logged) for a bug. */
export function errorAnswer(err: unknown, logger: Logger): { status: number; message: string } {
  if (err instanceof DomainError) return DomainErrorAnswers[err.code](err.params);
  if (err instanceof RpcFailure) return { status: err.status, message: err.message };
  if (isTransient(err)) {
    logger.warn({ err }, 'a backend is away for now');
    return { status: 503, message: ErrorMessages.unavailable };
  }
  const type = (err as { type?: string }).type;
  if (typeof type === 'string' && type.startsWith('entity.'))
    return { status: 400, message: ErrorMessages.malformedJson };
  logger.error({ err }, 'unhandled dashboard error');
  return { status: 500, message: ErrorMessages.internal };
}
