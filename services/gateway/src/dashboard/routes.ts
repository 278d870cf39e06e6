import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  checkRequest,
  CreateRefundBodySchema,
  DashboardTexts as T,
  DisputeDefenseBodySchema,
  DispatcherRpc,
  EXPORT_PAGE_LIMIT,
  isMonth,
  monthDays,
  isDay,
  isStatementDay,
  statementDay,
  STATEMENT_FIRST_DAY,
  type BalanceExportPage,
  type ExportCursor,
  DomainError,
  ErrorMessages,
  formatBrl,
  isEventId,
  isPaymentId,
  PaymentsRpc,
  PUBLIC_STATUSES,
  SandboxPayBodySchema,
  SandboxRpc,
  type ErrorBody,
  type Payment,
  type PaymentWebhookState,
  type PublicEventDetail,
  type PublicStatus,
  type Refund,
} from '@pix/contracts';
import { callRpc, RpcFailure } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { throughTheDoor, type TokenRateLimiter } from '../auth';
import type { AuthCache } from '../auth-cache';
import type { AuthFailures } from '../auth-failures';
import type { PaymentStatusFeed } from '../payment-page/status-feed';
import { medWith, payWith, sandboxAct } from '../sandbox-actions';
import type { PaymentViews } from '../payment-views';
import { writeStatementCsv } from '../statement-csv';
import type { StreamLimiter } from '../sse-limits';
import { browserScript, serveScript } from '../pages/browser-scripts';
import { html } from '../pages/html';
import { hashToken, type Stores } from '../storage';
import { DASHBOARD_STYLE } from './assets';
import { parseBrlInput } from './brl-input';
import { csrfAccepted } from './csrf';
import { errorAnswer, parseCookies, sendHtml, sendJson } from './respond';
import { storeStream } from './stream';
import { messagePage, statusBadge, type NavPage } from './html/layout';
import { loginPage } from './html/login';
import { livePaymentParts, paymentPage, refundRow, timeline } from './html/payment';
import { disputesPage } from './html/disputes';
import { paymentsPage, type PaymentRow } from './html/payments';
import { statementPage } from './html/statement';
import { webhooksPage } from './html/webhooks';
import type { Session, SessionSigner } from './session';

/** Payments per page of the list. */
const PAGE_SIZE = 20;
/** Events of one payment read for its timeline (a payment has a handful). */
const TIMELINE_EVENTS = 50;
/** How long the login form's nonce cookie lives. */
const LOGIN_NONCE_MS = 30 * 60 * 1000;

export interface DashboardOptions {
  nc: NatsConnection;
  logger: Logger;
  rpcTimeoutMs: number;
  authCache: AuthCache;
  authFailures: AuthFailures;
  rateLimiter: TokenRateLimiter;
  feed: PaymentStatusFeed;
  streams: StreamLimiter;
  signer: SessionSigner;
  /** Where browsers reach the gateway: the only origin state-changing requests may come from. */
  publicBaseUrl: string;
  /** The store's name in the header, and its webhook secrets on the webhooks page. */
  stores: Pick<Stores, 'name' | 'webhookSecrets'>;
  /** The payments' read model, which the sandbox's buttons read the payment from first. */
  views: Pick<PaymentViews, 'read'>;
}

/** A store's data in one mode, as the store-scoped RPCs take it. */
interface Scope {
  storeId: string;
  livemode: boolean;
}

interface SessionLocals {
  session: Session;
  /** The mode of the token the session was opened with: the dashboard shows that mode's data only. */
  livemode: boolean;
  storeName: string;
  csrf: string;
}

/** Why the login page is shown again (`?motivo=`), as the merchant reads it. */
const NOTICES: Record<string, string> = {
  sessao: T.login.sessionEnded,
  saiu: T.login.loggedOut,
  inativa: T.login.storeInactive,
};

/** A list page number from `?pagina=`: 1 unless a whole number within the API's bounds. */
function pageNumber(value: unknown): number {
  const n = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : 1;
  return n >= 1 && n <= 1_000_000 ? n : 1;
}

/**
 * The merchant's dashboard, mounted at /dashboard: server-rendered pages in Portuguese, one small
 * script of its own, and the same RPCs the public API calls (payments, the Events API, the sandbox)
 * with the store taken from the session, never from the request. Every request after the login is
 * checked like a bearer request (the auth cache, then the token's rate limit).
 */
export function dashboardRouter(options: DashboardOptions): Router {
  const { nc, rpcTimeoutMs, authCache, authFailures, rateLimiter, feed, streams, signer, logger, stores } = options;
  const origin = new URL(options.publicBaseUrl).origin;
  const secure = origin.startsWith('https:');
  // The __Host- prefix pins an https cookie to this host and path /, out of reach of subdomains.
  const SESSION_COOKIE = secure ? '__Host-pix_dashboard' : 'pix_dashboard';
  const LOGIN_COOKIE = secure ? '__Host-pix_dashboard_login' : 'pix_dashboard_login';
  const cookieOptions = { httpOnly: true, sameSite: 'strict' as const, secure, path: '/' };
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });
  const json = express.json({ limit: '4kb' });
  // A defence of 1000 characters, each up to 4 UTF-8 bytes and 3 characters each when form-encoded.
  const defenseForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });

  // Store names never change once created; a page view should not cost a database read for one.
  const names = new Map<string, string>();
  async function storeName(storeId: string): Promise<string> {
    const known = names.get(storeId);
    if (known !== undefined) return known;
    const name = (await stores.name(storeId)) ?? '';
    if (names.size >= 10_000) names.clear();
    names.set(storeId, name);
    return name;
  }

  const dashboardScript = browserScript('dashboard');
  const script = `/dashboard/assets/${dashboardScript.name}`;
  router.get(`/assets/${dashboardScript.name}`, serveScript(dashboardScript));
  router.get('/assets/dashboard.css', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/css').send(DASHBOARD_STYLE);
  });

  /** The request's session, if its cookie holds a valid one that the auth cache still accepts. */
  async function currentSession(
    req: Request,
  ): Promise<{ ok: true; session: Session; livemode: boolean } | { ok: false; reason: 'none' | 'ended' | 'inactive' }> {
    const value = parseCookies(req.get('cookie')).get(SESSION_COOKIE);
    if (value === undefined) return { ok: false, reason: 'none' };
    const session = signer.read(value);
    if (!session || authCache.isSessionEnded(session.id)) return { ok: false, reason: 'ended' };
    const auth = await authCache.authenticateHash(session.tokenHash);
    if (!auth.ok) return { ok: false, reason: auth.reason === 'store_inactive' ? 'inactive' : 'ended' };
    if (auth.storeId !== session.storeId) return { ok: false, reason: 'ended' };
    return { ok: true, session, livemode: auth.livemode };
  }

  function showLogin(req: Request, res: Response, status: number, notice?: string, error?: string): void {
    const { nonce, csrf } = signer.loginNonce(parseCookies(req.get('cookie')).get(LOGIN_COOKIE));
    res.cookie(LOGIN_COOKIE, nonce, { ...cookieOptions, maxAge: LOGIN_NONCE_MS });
    sendHtml(res, status, loginPage({ script, csrf, notice, error }));
  }

  router.get('/', (_req, res) => res.redirect(303, '/dashboard/pagamentos'));

  router.get('/entrar', async (req, res) => {
    if ((await currentSession(req)).ok) return res.redirect(303, '/dashboard/pagamentos');
    const reason = typeof req.query.motivo === 'string' ? NOTICES[req.query.motivo] : undefined;
    showLogin(req, res, 200, reason);
  });

  router.post('/entrar', form, async (req, res) => {
    const nonce = parseCookies(req.get('cookie')).get(LOGIN_COOKIE) ?? '';
    if (nonce === '' || !csrfAccepted(req, origin, signer.loginCsrf(nonce))) {
      return showLogin(req, res, 403, undefined, T.errors.forbidden);
    }
    const body = req.body as Record<string, unknown>;
    const token = typeof body.token === 'string' ? body.token.trim() : '';
    const auth = token === '' ? null : await throughTheDoor(authCache, authFailures, req, token);
    if (auth?.ok === false && auth.reason === 'throttled') {
      res.set('Retry-After', String(auth.retryAfterSeconds));
      return showLogin(req, res, 429, undefined, ErrorMessages.authThrottled);
    }
    if (!auth?.ok) {
      const inactive = auth?.reason === 'store_inactive';
      return showLogin(req, res, inactive ? 403 : 401, undefined, inactive ? T.login.storeInactive : T.login.invalid);
    }
    const tokenHash = hashToken(token);
    const allowed = await rateLimiter.consume(tokenHash);
    if (!allowed.ok) {
      res.set('Retry-After', String(allowed.retryAfterSeconds));
      return showLogin(req, res, 429, undefined, ErrorMessages.rateLimited);
    }
    const { session, value } = signer.issue(auth.storeId, tokenHash);
    res.cookie(SESSION_COOKIE, value, { ...cookieOptions, maxAge: session.expiresAt - Date.now() });
    res.redirect(303, '/dashboard/pagamentos');
  });

  // Pages are redirected to the login; what the script fetches (the stream, the timeline, the
  // session probe, the actions) is answered 401 and the script goes to the login itself.
  const wantsHtml = (req: Request) => req.method === 'GET' && !/^\/(stream|sessao)$|\/linha-do-tempo$/.test(req.path);

  /** Every route below: a live session, its rate limit, and for a change, the CSRF defence. */
  const requireSession: RequestHandler = async (req, res, next) => {
    const current = await currentSession(req);
    if (!current.ok) {
      if (current.reason !== 'none') res.clearCookie(SESSION_COOKIE, cookieOptions);
      if (wantsHtml(req)) {
        const motivo = current.reason === 'inactive' ? 'inativa' : current.reason === 'ended' ? 'sessao' : '';
        return res.redirect(303, `/dashboard/entrar${motivo ? `?motivo=${motivo}` : ''}`);
      }
      const body: ErrorBody = { statusCode: 401, message: T.login.sessionEnded };
      return sendJson(res, 401, body);
    }
    const allowed = await rateLimiter.consume(current.session.tokenHash);
    if (!allowed.ok) {
      res.set('Retry-After', String(allowed.retryAfterSeconds));
      return wantsHtml(req)
        ? sendHtml(res, 429, messagePage(T.errors.rateLimitedTitle, ErrorMessages.rateLimited, script))
        : sendJson(res, 429, { statusCode: 429, message: ErrorMessages.rateLimited });
    }
    const locals = res.locals as SessionLocals;
    locals.session = current.session;
    locals.livemode = current.livemode;
    locals.csrf = signer.csrfToken(current.session);
    locals.storeName = await storeName(current.session.storeId);
    next();
  };

  const requireCsrf: RequestHandler = (req, res, next) => {
    const { csrf } = res.locals as SessionLocals;
    if (!csrfAccepted(req, origin, csrf)) return sendJson(res, 403, { statusCode: 403, message: T.errors.forbidden });
    next();
  };

  const navOf = (res: Response, active: NavPage | null) => {
    const { storeName: name, csrf, livemode } = res.locals as SessionLocals;
    return { name, csrf, active, livemode };
  };
  const storeOf = (res: Response) => (res.locals as SessionLocals).session.storeId;
  /** The session's store and mode, as every store-scoped RPC takes them. */
  const scopeOf = (res: Response): Scope => ({
    storeId: storeOf(res),
    livemode: (res.locals as SessionLocals).livemode,
  });

  router.use(requireSession);

  router.post('/sair', form, async (req, res) => {
    if (!csrfAccepted(req, origin, (res.locals as SessionLocals).csrf)) {
      return sendHtml(res, 403, messagePage(T.errors.forbidden, T.errors.forbidden, script, navOf(res, null)));
    }
    // Ended for every replica, so a copy of the cookie is refused too, not only this browser's.
    const { session } = res.locals as SessionLocals;
    await authCache.sessionEnded(session.id, session.expiresAt);
    res.clearCookie(SESSION_COOKIE, cookieOptions);
    res.redirect(303, '/dashboard/entrar?motivo=saiu');
  });

  /** Whether each payment's webhooks are pending or failing; unknown (not shown) if the dispatcher is away. */
  async function webhookStates(scope: Scope, ids: string[]): Promise<Map<string, PaymentWebhookState>> {
    try {
      const { states } = await callRpc(
        nc,
        DispatcherRpc.paymentWebhookStates,
        { ...scope, paymentIds: ids },
        rpcTimeoutMs,
      );
      return new Map(states.map((s) => [s.paymentId, s.state]));
    } catch (err) {
      logger.warn({ err }, 'webhook states of the dashboard list unavailable');
      return new Map();
    }
  }

  router.get('/pagamentos', async (req, res) => {
    const scope = scopeOf(res);
    const status = PUBLIC_STATUSES.includes(req.query.status as PublicStatus)
      ? (req.query.status as PublicStatus)
      : null;
    const page = pageNumber(req.query.pagina);
    const list = await callRpc(
      nc,
      PaymentsRpc.list,
      { ...scope, query: { page, limit: PAGE_SIZE, ...(status ? { status } : {}) } },
      rpcTimeoutMs,
    );
    const states = await webhookStates(
      scope,
      list.items.map((p) => p.id),
    );
    const rows: PaymentRow[] = list.items.map((p) => ({ ...p, webhook: states.get(p.id) ?? null }));
    sendHtml(
      res,
      200,
      paymentsPage({ script, store: navOf(res, 'payments'), rows, status, page, limit: PAGE_SIZE, total: list.total }),
    );
  });

  /** A month (AAAA-MM) or a day (AAAA-MM-DD) of the statement, as the days it spans; null when it is none or out of range. */
  function statementPeriod(period: string): { from: string; to: string } | null {
    const today = statementDay(new Date());
    if (isDay(period)) return isStatementDay(period) ? { from: period, to: period } : null;
    if (!isMonth(period) || period < STATEMENT_FIRST_DAY.slice(0, 7) || period > today.slice(0, 7)) return null;
    const { from, to } = monthDays(period);
    return { from: from < STATEMENT_FIRST_DAY ? STATEMENT_FIRST_DAY : from, to: to > today ? today : to };
  }

  const invalidPeriod = (res: Response) =>
    sendHtml(
      res,
      400,
      messagePage(T.statement.periodInvalidTitle, T.statement.periodInvalid, script, navOf(res, 'statement')),
    );

  // The Extrato: a month by day (the current one unless `mes` names another).
  router.get('/extrato', async (req, res) => {
    const month = typeof req.query.mes === 'string' ? req.query.mes : statementDay(new Date()).slice(0, 7);
    if (!isMonth(month) || !statementPeriod(month)) return invalidPeriod(res);
    const statement = await callRpc(nc, PaymentsRpc.statementMonth, { ...scopeOf(res), month }, rpcTimeoutMs);
    const shift = (by: number) => {
      const at = new Date(`${month}-01T12:00:00.000Z`);
      at.setUTCMonth(at.getUTCMonth() + by);
      const other = at.toISOString().slice(0, 7);
      return statementPeriod(other) ? other : null;
    };
    sendHtml(
      res,
      200,
      statementPage({ script, store: navOf(res, 'statement'), month: statement, previous: shift(-1), next: shift(1) }),
    );
  });

  // The statement of a month or a day as CSV, written as payments hands out its pages.
  router.get('/extrato/:file', async (req, res) => {
    const period = /^(.+)\.csv$/.exec(req.params.file)?.[1] ?? '';
    const days = statementPeriod(period);
    if (!days) return invalidPeriod(res);
    const scope = scopeOf(res);
    const page = (cursor: ExportCursor | null): Promise<BalanceExportPage> =>
      callRpc(nc, PaymentsRpc.balanceExport, { ...scope, ...days, cursor, limit: EXPORT_PAGE_LIMIT }, rpcTimeoutMs);
    // The first page before the headers: payments away is a 503 page, not a truncated file.
    const first = await page(null);
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="extrato-${period}.csv"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    // A later page that fails ends the response unfinished (the error handler passes it on).
    await writeStatementCsv(res, (cursor) => (cursor ? page(cursor) : Promise.resolve(first)));
    res.end();
  });

  /** The payment (404 as another store's), its refunds, and its events with every attempt. */
  async function paymentWithEvents(
    scope: Scope,
    id: string,
  ): Promise<{ payment: Payment; refunds: Refund[]; events: PublicEventDetail[] }> {
    if (!isPaymentId(id)) throw new DomainError('payment_not_found');
    const payment = await callRpc(nc, PaymentsRpc.get, { ...scope, id }, rpcTimeoutMs);
    const [refunds, list] = await Promise.all([
      callRpc(nc, PaymentsRpc.refundsList, { ...scope, paymentId: id }, rpcTimeoutMs),
      callRpc(
        nc,
        DispatcherRpc.eventsList,
        { ...scope, query: { page: 1, limit: TIMELINE_EVENTS, paymentId: id } },
        rpcTimeoutMs,
      ),
    ]);
    const events = await Promise.all(
      list.items.map((e) => callRpc(nc, DispatcherRpc.eventsGet, { ...scope, eventId: e.id }, rpcTimeoutMs)),
    );
    return { payment, refunds: refunds.items, events };
  }

  router.get('/pagamentos/:id', async (req, res) => {
    const { payment, refunds, events } = await paymentWithEvents(scopeOf(res), req.params.id);
    sendHtml(
      res,
      200,
      paymentPage({
        script,
        store: navOf(res, 'payments'),
        payment,
        refunds,
        events,
        refundId: randomUUID(),
        pageUrl: `${options.publicBaseUrl.replace(/\/$/, '')}/pay/${payment.id}`,
        // The sandbox's buttons in test mode only: a live payment is paid by the payer's bank alone.
        sandbox: !scopeOf(res).livemode,
      }),
    );
  });

  // The timeline, the status and the refunds, for the page's script to refresh them after an
  // event, an action or a retry.
  router.get('/pagamentos/:id/linha-do-tempo', async (req, res) => {
    const { payment, refunds, events } = await paymentWithEvents(scopeOf(res), req.params.id);
    sendHtml(
      res,
      200,
      html`${timeline(payment, events)}
<template id="status-now">${statusBadge(payment.status, 'status')}</template>
<template id="parts-now">${livePaymentParts(payment, refunds)}</template>`.text,
    );
  });

  /** Runs a JSON action: its answer, or the error body the public API would answer. */
  const action =
    (handler: (req: Request, res: Response) => Promise<unknown>): RequestHandler =>
    async (req, res) => {
      try {
        sendJson(res, 200, await handler(req, res));
      } catch (err) {
        const { status, message } = errorAnswer(err, logger);
        sendJson(res, status, { statusCode: status, message });
      }
    };

  /**
   * A JSON action on one payment (`POST /pagamentos/:id/<path>`), CSRF-checked; the handler gets
   * the payment id, and an id that cannot be one is not found, as another store's.
   */
  const paymentAction = (
    path: string,
    handler: (id: string, req: Request, res: Response) => Promise<unknown>,
  ): void => {
    router.post(
      `/pagamentos/:id/${path}`,
      json,
      requireCsrf,
      action(async (req, res) => {
        const { id } = req.params as { id: string };
        if (!isPaymentId(id)) throw new DomainError('payment_not_found');
        return handler(id, req, res);
      }),
    );
  };

  // A refund from the payment page: the amount as the merchant typed it (empty: all that is left),
  // the reason, and the page's refund id, so a double submit or a retried request makes one refund.
  // The answer carries the refund's row (shown at once, pending) and the id of the next refund.
  paymentAction('reembolsos', async (id, req, res) => {
    const body = (req.body ?? {}) as { refundId?: unknown; amount?: unknown; reason?: unknown };
    // A page without the id is not this page (or an old copy of it): it should be reloaded.
    if (!isPaymentId(body.refundId)) throw new RpcFailure(400, T.errors.forbidden);
    const typed = typeof body.amount === 'string' ? body.amount.trim() : '';
    const amount = typed === '' ? null : parseBrlInput(typed);
    if (amount === null && typed !== '') throw new RpcFailure(400, ErrorMessages.refundAmountInvalid);
    const reason = typeof body.reason === 'string' ? body.reason.trim() : null;
    const validated = checkRequest(CreateRefundBodySchema, { amount, reason });
    if (!validated.ok) throw new RpcFailure(400, validated.message);
    const refund = await callRpc(
      nc,
      PaymentsRpc.refundsCreate,
      { ...scopeOf(res), paymentId: id, refundId: body.refundId, input: validated.value },
      rpcTimeoutMs,
    );
    return {
      refund,
      row: refundRow(refund).text,
      nextRefundId: randomUUID(),
      message: T.payment.refund.requested(formatBrl(refund.amount)),
    };
  });

  // Cancel a pending payment (the page asked for a confirmation first): not_approved at once.
  paymentAction('cancelar', async (id, _req, res) => {
    const payment = await callRpc(nc, PaymentsRpc.cancel, { ...scopeOf(res), id }, rpcTimeoutMs);
    return { payment, message: T.payment.cancel.done };
  });

  const sandbox = { nc, rpcTimeoutMs, views: options.views };
  const SANDBOX_ACTIONS = {
    review: SandboxRpc.review,
    clear: SandboxRpc.clear,
    reject: SandboxRpc.reject,
    'fail-next-refund': SandboxRpc.failNextRefund,
  } as const;

  paymentAction('sandbox/:action', async (id, req, res) => {
    const scope = scopeOf(res);
    const { action: name } = req.params as { action: string };
    if (name === 'pay' || name === 'pay-amount' || name === 'pay-late') {
      let amountCents: number | undefined;
      if (name === 'pay-amount') {
        const typed = (req.body as { amount?: unknown } | undefined)?.amount;
        const amount = typeof typed === 'string' ? parseBrlInput(typed) : null;
        const validated = checkRequest(SandboxPayBodySchema, { amount: amount ?? -1 });
        if (!validated.ok) throw new RpcFailure(400, validated.message);
        amountCents = validated.value.amountCents;
      }
      const late = name === 'pay-late';
      return sandboxAct(sandbox, scope, id, SandboxRpc.pay, payWith({ amountCents, late, dropCallback: false }));
    }
    // A MED return of all that is left of the Pix, for a fraud claim upheld: the dashboard's one kind.
    if (name === 'med') {
      return sandboxAct(sandbox, scope, id, SandboxRpc.med, medWith({ amountCents: undefined, nature: 'med_fraud' }));
    }
    // Own keys only: `constructor` or `toString` name no action.
    if (!Object.hasOwn(SANDBOX_ACTIONS, name)) throw new RpcFailure(404, ErrorMessages.routeNotFound);
    const definition = SANDBOX_ACTIONS[name as keyof typeof SANDBOX_ACTIONS];
    return sandboxAct(sandbox, scope, id, definition, () => ({ paymentId: id }));
  });

  router.post(
    '/eventos/:eventId/reenviar',
    requireCsrf,
    action(async (req, res) => {
      const { eventId } = req.params as { eventId: string };
      if (!isEventId(eventId)) throw new DomainError('event_not_found');
      const started = await callRpc(nc, DispatcherRpc.eventsRedeliver, { ...scopeOf(res), eventId }, rpcTimeoutMs);
      return { ...started, message: T.payment.redelivered(started.run) };
    }),
  );

  /** Contestações: the store's open disputes, with what the last defence sent answered. */
  async function showDisputes(res: Response, status: number, notice?: { ok: boolean; text: string }): Promise<void> {
    const disputes = await callRpc(nc, PaymentsRpc.disputesOpen, scopeOf(res), rpcTimeoutMs);
    sendHtml(res, status, disputesPage({ script, store: navOf(res, 'disputes'), disputes, notice }));
  }

  router.get('/contestacoes', (req, res) =>
    showDisputes(res, 200, req.query.enviada === '1' ? { ok: true, text: T.disputes.sent } : undefined),
  );

  // A defence from the list's form (no script needed): sent, the list again (303); refused, the
  // list with the API's message and its status.
  router.post('/contestacoes/:id/defesa', defenseForm, async (req, res) => {
    if (!csrfAccepted(req, origin, (res.locals as SessionLocals).csrf)) {
      return sendHtml(res, 403, messagePage(T.errors.forbidden, T.errors.forbidden, script, navOf(res, 'disputes')));
    }
    const { id } = req.params;
    const validated = checkRequest(DisputeDefenseBodySchema, { text: (req.body as { text?: unknown }).text });
    try {
      if (!isPaymentId(id)) throw new DomainError('payment_not_found');
      if (!validated.ok) throw new RpcFailure(400, validated.message);
      await callRpc(
        nc,
        PaymentsRpc.disputeDefense,
        { ...scopeOf(res), paymentId: id, input: validated.value },
        rpcTimeoutMs,
      );
    } catch (err) {
      const { status, message } = errorAnswer(err, logger);
      return showDisputes(res, status, { ok: false, text: message });
    }
    res.redirect(303, '/dashboard/contestacoes?enviada=1');
  });

  async function showWebhooks(res: Response, secrets: string[] | null): Promise<void> {
    const since = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
    const stats = await callRpc(nc, DispatcherRpc.endpointStats, { ...scopeOf(res), since }, rpcTimeoutMs);
    sendHtml(res, 200, webhooksPage({ script, store: navOf(res, 'webhooks'), stats, secrets }));
  }

  router.get('/webhooks', (_req, res) => showWebhooks(res, null));

  // The secret is shown only on this explicit request (a POST, so no link, prefetch or cache holds it).
  router.post('/webhooks/segredo', form, async (req, res) => {
    if (!csrfAccepted(req, origin, (res.locals as SessionLocals).csrf)) {
      return sendHtml(res, 403, messagePage(T.errors.forbidden, T.errors.forbidden, script, navOf(res, 'webhooks')));
    }
    const { storeId, livemode } = scopeOf(res);
    await showWebhooks(res, (await stores.webhookSecrets(storeId, livemode)).secrets);
  });

  // Whether the session still stands: the script asks when its stream was refused.
  router.get('/sessao', (_req, res) => {
    res.status(204).set('Cache-Control', 'no-store').end();
  });

  router.get(
    '/stream',
    storeStream({
      feed,
      streams,
      storeOf,
      livemodeOf: (res) => scopeOf(res).livemode,
      stillValid: async (req) => (await currentSession(req)).ok,
    }),
  );

  router.use((_req: Request, res: Response) => {
    sendHtml(res, 404, messagePage(T.errors.notFoundTitle, ErrorMessages.routeNotFound, script, navOf(res, null)));
  });

  // Pages answer errors as pages; the JSON actions answered theirs already.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const { status, message } = errorAnswer(err, logger);
    const title =
      status === 404 ? T.errors.notFoundTitle : status === 429 ? T.errors.rateLimitedTitle : T.errors.unavailableTitle;
    const locals = res.locals as Partial<SessionLocals>;
    sendHtml(res, status, messagePage(title, message, script, locals.session ? navOf(res, null) : undefined));
  });

  return router;
}
