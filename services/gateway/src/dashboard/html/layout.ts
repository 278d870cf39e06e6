import { DashboardTexts as T, formatBrl, StatusLabels, type PaymentStatus } from '@pix/contracts';
import { html, type SafeHtml } from '../../pages/html';
import type { DashboardScriptTexts } from '../live-messages';

export { formatBrl };

/** Where the dashboard's own styles live: the same origin, nothing from elsewhere. */
export const DASHBOARD_STYLE_PATH = '/dashboard/assets/dashboard.css';

/** What a screen reader says of the webhook cell of a payment without webhookUrl. */
export const NO_WEBHOOK = 'sem webhook';

/** The texts the dashboard's script shows, which every page carries in its body's data-texts. */
const SCRIPT_TEXTS: DashboardScriptTexts = {
  live: T.live,
  networkError: T.payment.networkError,
  sending: T.payment.sending,
  total: { one: T.payments.total(1), many: T.payments.total(2).replace('2', '{n}') },
  columns: T.payments.columns,
  noWebhook: NO_WEBHOOK,
};

/**
 * As the payment page's: only the gateway's own script, styles, images and event stream; no inline
 * script or style, no frames. Forms may post only to the gateway itself.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const SAO_PAULO = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** An instant as a Brazilian merchant reads it: São Paulo's time, `24/11/2026, 16:45:03`. */
export function saoPauloTime(iso: string): string {
  return SAO_PAULO.format(new Date(iso));
}

/** The UTC time shown on hover. */
export function utcTime(iso: string): string {
  return `${new Date(iso)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;
}

/** A `<time>` in São Paulo's time with the UTC one as its title. */
export function timeTag(iso: string): SafeHtml {
  return html`<time datetime="${iso}" title="${utcTime(iso)}">${saoPauloTime(iso)}</time>`;
}

export function statusBadge(status: PaymentStatus, id?: string): SafeHtml {
  const idAttr = id && html` id="${id}"`;
  return html`<span${idAttr} class="badge badge-${status}" data-status="${status}">${StatusLabels[status]}</span>`;
}

/** The pages the navigation links to. */
export type NavPage = 'payments' | 'disputes' | 'statement' | 'webhooks';

export interface LayoutOptions {
  title: string;
  /** The address of the dashboard's script, whose name carries its content's hash (pages/browser-scripts.ts). */
  script: string;
  /**
   * The signed-in store, when there is one: the navigation, the logout form, and the mode shown
   * (`livemode`: the session's token's), which a banner names on every page.
   */
  store?: { name: string; csrf: string; active: NavPage | null; livemode: boolean };
  /** The page follows the store's events live: it shows whether the stream is connected. */
  live?: boolean;
  /** Attributes of <body> the script reads (page kind, ids). */
  data?: Record<string, string>;
}

function nav(store: NonNullable<LayoutOptions['store']>, live: boolean): SafeHtml {
  const link = (href: string, text: string, key: NavPage) =>
    html`<a href="${href}"${store.active === key && html` aria-current="page"`}>${text}</a>`;
  return html`<header class="top">
<div class="brand"><span class="product">${T.product}</span> <span class="store" id="store-name">${store.name}</span></div>
<nav aria-label="Painel">
${link('/dashboard/pagamentos', T.nav.payments, 'payments')}
${link('/dashboard/contestacoes', T.nav.disputes, 'disputes')}
${link('/dashboard/extrato', T.nav.statement, 'statement')}
${link('/dashboard/webhooks', T.nav.webhooks, 'webhooks')}
<form method="post" action="/dashboard/sair" class="logout"><input type="hidden" name="csrf" value="${store.csrf}"><button type="submit" id="logout">${T.nav.logout}</button></form>
</nav>
${live && html`<p class="live" id="live" role="status" data-live="off">${T.live.off}</p>\n`}</header>
${modeBanner(store.livemode)}`;
}

/** One mode at a time: the banner says which, and how to see the other. */
function modeBanner(livemode: boolean): SafeHtml {
  const [mode, label, detail] = livemode
    ? ['live', T.mode.live, T.mode.liveDetail]
    : ['test', T.mode.test, T.mode.testDetail];
  return html`<p class="mode mode-${mode}" id="mode" role="note" data-livemode="${String(livemode)}"><strong>${label}</strong> ${detail}</p>`;
}

/** A whole dashboard page: its shell, the navigation when signed in, and the content. */
export function layout(options: LayoutOptions, content: SafeHtml): string {
  const data = Object.entries({ ...options.data, texts: JSON.stringify(SCRIPT_TEXTS) }).map(
    ([key, value]) => html` data-${key}="${value}"`,
  );
  const csrf = options.store && html`<meta name="csrf-token" content="${options.store.csrf}">\n`;
  return html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${csrf}<title>${options.title} · ${T.product}</title>
<link rel="stylesheet" href="${DASHBOARD_STYLE_PATH}">
<script src="${options.script}" defer></script>
</head>
<body${data}>
${options.store && nav(options.store, options.live === true)}
<main id="main" class="content">
${content}
</main>
</body>
</html>
`.text;
}

/** A page that only says what went wrong (not found, unavailable, too many requests). */
export function messagePage(title: string, detail: string, script: string, store?: LayoutOptions['store']): string {
  return layout(
    { title, script, store },
    html`<h1>${title}</h1>\n<p>${detail}</p>\n<p><a href="/dashboard/pagamentos">${T.payment.back}</a></p>`,
  );
}
