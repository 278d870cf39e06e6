import type { Request } from 'express';
import { sameSecret } from '@pix/runtime';

/**
 * Where a state-changing request came from, as the browser says: its Origin header, or when a
 * browser sends none, the origin of its Referer. A request from another site (or from no page at
 * all) is refused before anything else is looked at.
 */
export function fromOrigin(req: Request, allowedOrigin: string): boolean {
  const origin = req.get('origin');
  if (origin !== undefined) return origin === allowedOrigin;
  const referer = req.get('referer');
  if (!referer) return false;
  try {
    return new URL(referer).origin === allowedOrigin;
  } catch {
    return false;
  }
}

/**
 * The CSRF defence of a state-changing request: it comes from the dashboard's own origin, and it
 * carries the token bound to its session (a header from the page's script, or a form field). The
 * cookie is SameSite=Strict as well; each of the three alone would stop a cross-site form.
 */
export function csrfAccepted(req: Request, allowedOrigin: string, expectedToken: string): boolean {
  if (!fromOrigin(req, allowedOrigin)) return false;
  const body = req.body as Record<string, unknown> | undefined;
  const presented = req.get('x-csrf-token') ?? (typeof body?.csrf === 'string' ? body.csrf : '');
  return presented !== '' && sameSecret(presented, expectedToken);
}
