import { formatBrl, PaymentPageTexts as T, type PagePhase } from '@pix/contracts';
import { html, type SafeHtml } from '../pages/html';
import { SCRIPT_TEXTS } from './script-texts';

/** Where the page's own styles live (same origin: the page loads nothing from elsewhere). */
export const STYLE_PATH = '/pay/assets/payment-page.css';

/**
 * Everything the page may load comes from the gateway itself; no inline script or style, no
 * frames, no forms. The live status uses EventSource on the same origin (connect-src).
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** What the page shows of a payment: nothing else reaches it. */
export interface PageModel {
  id: string;
  storeName: string;
  amount: number;
  phase: PagePhase;
  qrCopyPaste: string | null;
  expiresAt: string;
  sequence: number;
}

/** A page; `script` is the address of its script, whose name carries its content's hash. */
function document(title: string, body: SafeHtml, script: string): string {
  return html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<link rel="stylesheet" href="${STYLE_PATH}">
<script src="${script}" defer></script>
</head>
<body>
${body}
</body>
</html>
`.text;
}

/** H:MM:SS left until `expiresAt`, as the script keeps it up to date. */
export function timeLeft(expiresAt: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(seconds / 3600)}:${two(Math.floor((seconds % 3600) / 60))}:${two(seconds % 60)}`;
}

function paySection(model: PageModel): SafeHtml {
  const hidden = model.phase !== 'pending' && html` hidden`;
  if (model.qrCopyPaste === null) {
    return html`<section id="pay" class="pay"${hidden}><p>${T.codePending}</p></section>`;
  }
  const left = timeLeft(model.expiresAt);
  return html`<section id="pay" class="pay" aria-labelledby="pay-title"${hidden}>
<h2 id="pay-title" class="visually-hidden">${T.title}</h2>
<p class="time-left">${T.timeLeft}: <time id="time-left">${left}</time></p>
<img id="qr" class="qr" src="/public-api/v1/qrcodes/${model.id}.png" alt="${T.qrAlt}" width="280" height="280">
<label for="code">${T.code}</label>
<textarea id="code" class="code" readonly rows="5" spellcheck="false">${model.qrCopyPaste}</textarea>
<button type="button" id="copy" class="copy">${T.copy}</button>
<p id="copy-result" class="copy-result" role="status"></p>
</section>`;
}

/** The hosted payment page of one payment, in its current phase; the script keeps it live. */
export function paymentPage(model: PageModel, script: string): string {
  const body = html`<main id="payment" class="page" data-payment-id="${model.id}" data-phase="${model.phase}" data-expires-at="${model.expiresAt}" data-sequence="${model.sequence}" data-texts="${JSON.stringify(SCRIPT_TEXTS)}">
<h1>${T.title}</h1>
<dl class="summary">
<div><dt>${T.payee}</dt><dd id="store">${model.storeName}</dd></div>
<div><dt>${T.amount}</dt><dd id="amount" class="amount">${formatBrl(model.amount)}</dd></div>
</dl>
<section class="status" aria-labelledby="status-title">
<h2 id="status-title">${T.status}</h2>
<div id="status" role="status">
<p id="phase" class="phase phase-${model.phase}">${T.phases[model.phase]}</p>
<p id="detail" class="detail">${T.details[model.phase]}</p>
</div>
</section>
${paySection(model)}
<p class="live">${T.live}</p>
</main>`;
  return document(`${T.title} · ${model.storeName}`, body, script);
}

/** The page for an address that is no payment (or a payment that cannot be read now). */
export function errorPage(title: string, detail: string, script: string): string {
  return document(title, html`<main class="page">\n<h1>${title}</h1>\n<p>${detail}</p>\n</main>`, script);
}
