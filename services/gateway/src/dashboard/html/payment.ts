import {
  brlToCents,
  DashboardTexts as T,
  MAX_REFUND_REASON_CHARS,
  StatusLabels,
  type Payment,
  type PublicEventDetail,
  type Refund,
} from '@pix/contracts';
import { html, joinHtml, type HtmlValue, type SafeHtml } from '../../pages/html';
import type { LayoutOptions } from './layout';
import { formatBrl, layout, statusBadge, timeTag } from './layout';

const P = T.payment;

export interface PaymentView {
  script: string;
  store: NonNullable<LayoutOptions['store']>;
  payment: Payment;
  /** The payment's hosted page, for the customer. */
  pageUrl: string;
  events: PublicEventDetail[];
  /** The payment's refunds, newest first (PaymentsRpc.refundsList). */
  refunds: Refund[];
  /** The id the refund form sends (a UUID): the same id asks for the same refund, so a retry makes one. */
  refundId: string;
  sandbox: boolean;
}

const NONE = html`<span class="muted">—</span>`;

/** One field of the payment: its value is text, or markup made by `html`; never a string of markup. */
function field(label: string, value: HtmlValue, id?: string): SafeHtml {
  return html`<div><dt>${label}</dt><dd${id && html` id="${id}"`}>${value}</dd></div>`;
}

function orNone(text: string | null): HtmlValue {
  return text || NONE;
}

function duration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1).replace('.', ',')} s`;
}

function attemptRows(event: PublicEventDetail): SafeHtml {
  const rows = event.attempts.map((a) => {
    const answer =
      a.outcome === null
        ? html`<span class="muted">${P.inFlight}</span>`
        : a.statusCode !== null
          ? html`<span><span class="http http-${a.outcome}">HTTP ${a.statusCode}</span>${a.error && a.outcome !== 'success' && a.error !== `HTTP ${a.statusCode}` && html` <span class="muted">${a.error}</span>`}</span>`
          : html`<span class="http http-${a.outcome}">${a.error ?? a.outcome}</span>`;
    const which = a.run > 1 ? `${a.attempt} · ${P.rerun(a.run - 1)}` : String(a.attempt);
    return html`<tr data-outcome="${a.outcome ?? 'in_flight'}" data-run="${a.run}"><td data-label="${P.attempt}">${which}</td><td data-label="${P.attemptAt}">${timeTag(a.at)}</td><td data-label="${P.httpStatus}" class="answer">${answer}</td><td data-label="${P.duration}" class="num">${duration(a.latencyMs)}</td></tr>`;
  });
  return joinHtml(rows, '\n');
}

function eventTitle(event: PublicEventDetail): string {
  const { body } = event;
  switch (body.event) {
    case 'payment.created':
      return P.created;
    case 'payment.status_changed':
      return P.statusChange(StatusLabels[body.previousStatus], StatusLabels[body.status]);
    case 'refund.created':
      return (body.origin === 'psp' ? P.refundEvents.pspCreated : P.refundEvents[body.event])(formatBrl(body.amount));
    case 'refund.succeeded':
    case 'refund.failed':
      return P.refundEvents[body.event](formatBrl(body.amount));
    case 'payment.dispute_opened':
      return P.disputeEvents[body.event](formatBrl(body.amountAtRisk));
    case 'payment.dispute_reminder':
      return P.disputeEvents[body.event](body.hoursLeft);
    case 'payment.dispute_closed':
      return P.disputeEvents[body.event](body.decision ? P.disputeDecisions[body.decision] : '');
  }
}

/** One event: what happened, its delivery's state, each attempt, and Reenviar. */
function eventItem(event: PublicEventDetail): SafeHtml {
  const next =
    event.status === 'pending' &&
    event.nextAttemptAt &&
    html`<p class="next">${P.nextRetry}: ${timeTag(event.nextAttemptAt)}</p>`;
  const disabled = event.status === 'pending' && html` disabled`;
  const { body } = event;
  const refund =
    (body.event === 'refund.created' || body.event === 'refund.succeeded' || body.event === 'refund.failed') &&
    html` data-refund-id="${body.id}"`;
  return html`<li class="event" id="${event.id}" data-event-id="${event.id}" data-type="${event.type}" data-delivery="${event.status}"${refund}>
<div class="event-head">
<h3>${eventTitle(event)}</h3>
<p class="event-meta">${timeTag(event.createdAt)} · <code>${event.type}</code> · <span class="delivery delivery-${event.status}">${P.deliveryStatus[event.status]}</span></p>
<p class="event-meta">webhook-id <code class="webhook-id">${event.id}</code></p>
</div>
${
  event.attempts.length > 0 &&
  html`<div class="scroll"><table class="attempts cards">
<thead><tr><th scope="col">${P.attempt}</th><th scope="col">${P.attemptAt}</th><th scope="col">${P.httpStatus}</th><th scope="col" class="num">${P.duration}</th></tr></thead>
<tbody>
${attemptRows(event)}
</tbody>
</table></div>`
}
${next}
<button type="button" class="redeliver" data-redeliver="${event.id}"${disabled}>${P.redeliver}</button>
</li>`;
}

/** The timeline: every event of the payment, oldest first (also served alone, for live refreshes). */
export function timeline(payment: Payment, events: PublicEventDetail[]): SafeHtml {
  const items = [...events].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const body =
    items.length > 0
      ? html`<ol class="events">\n${joinHtml(items.map(eventItem), '\n')}\n</ol>`
      : html`<p class="muted">${P.created}: ${timeTag(payment.createdAt)}</p>\n<p>${P.noEvents}</p>`;
  return html`<div id="timeline-body" data-pending="${String(items.some((e) => e.status === 'pending'))}" data-next="${
    items
      .map((e) => (e.status === 'pending' ? (e.nextAttemptAt ?? '') : ''))
      .filter(Boolean)
      .sort()[0] ?? ''
  }">
${body}
</div>`;
}

function sandboxSection(id: string): SafeHtml {
  const A = P.sandboxActions;
  return html`<section class="card sandbox" aria-labelledby="sandbox-title">
<h2 id="sandbox-title">${P.sandbox}</h2>
<p>${P.sandboxIntro}</p>
<div class="actions">
<button type="button" class="primary" data-sandbox="pay">${A.pay}</button>
<button type="button" data-sandbox="review">${A.review}</button>
<button type="button" data-sandbox="clear">${A.clear}</button>
<button type="button" data-sandbox="reject">${A.reject}</button>
</div>
<div class="pay-amount">
<label for="other-amount">${P.amountLabel}</label>
<input id="other-amount" name="amount" inputmode="decimal" autocomplete="off" placeholder="40,00">
<button type="button" data-sandbox="pay-amount">${A.payAmount}</button>
</div>
<div class="actions later">
<button type="button" data-sandbox="pay-late" aria-describedby="late-hint">${A.payLate}</button>
<button type="button" data-sandbox="fail-next-refund">${A.failNextRefund}</button>
<button type="button" data-sandbox="med">${A.med}</button>
</div>
<p class="hint" id="late-hint">${P.sandboxLateHint}</p>
<h3>${P.answer}</h3>
<pre id="sandbox-answer" class="answer-box" role="status" aria-live="polite" data-payment-id="${id}"></pre>
</section>`;
}

/**
 * What is left to refund: the paid amount less every merchant or PSP refund not failed, as payments
 * checks it. An approved payment was paid its own amount (a Pix of another amount goes to review),
 * and the refunds of the Pix that paid it are the merchant's and the PSP's own (MED returns): the
 * platform's refunds of an approved payment return other Pix (late ones). Nothing is left of a payment that is not approved. The one
 * case this misses is a Pix of another amount held for analysis and then cleared by the PSP (the
 * sandbox holds none): the public Payment does not carry the paid amount. Payments has the last
 * word either way, and its refusal says what is left (ErrorMessages.refundAboveLeft).
 */
export function refundableCents(payment: Pick<Payment, 'status' | 'amount'>, refunds: Refund[]): number {
  if (payment.status !== 'approved') return 0;
  const taken = refunds
    .filter((r) => r.origin !== 'platform' && r.status !== 'failed')
    .reduce((sum, r) => sum + (brlToCents(r.amount) ?? 0), 0);
  return Math.max(0, (brlToCents(payment.amount) ?? 0) - taken);
}

const R = P.refunds;

/** Merchant- or payer-bank-given text, escaped and isolated (a right-to-left override stays in its cell). */
function foreignText(text: string | null): SafeHtml {
  return text ? html`<bdi>${text}</bdi>` : NONE;
}

/** One refund as a row of the refunds table (also sent alone, in the answer to the refund form). */
export function refundRow(refund: Refund): SafeHtml {
  const C = R.columns;
  const failure =
    refund.status === 'failed' &&
    refund.failureReason &&
    html`<span class="failure-reason"><span class="visually-hidden">${R.failureReason}: </span>${foreignText(refund.failureReason)}</span>`;
  return html`<tr id="refund-${refund.id}" data-refund-id="${refund.id}" data-status="${refund.status}" data-origin="${refund.origin}">
<td data-label="${C.amount}" class="num refund-amount">${formatBrl(refund.amount)}</td>
<td data-label="${C.status}" class="refund-status"><div><span class="badge refund-${refund.status}">${R.statuses[refund.status]}</span>${failure}</div></td>
<td data-label="${C.origin}" class="refund-origin">${R.origins[refund.origin]}</td>
<td data-label="${C.reason}" class="refund-reason">${refund.nature ? R.natures[refund.nature] : foreignText(refund.reason)}</td>
<td data-label="${C.createdAt}">${timeTag(refund.createdAt)}</td>
<td data-label="${C.settledAt}" class="refund-settled">${refund.settledAt ? timeTag(refund.settledAt) : NONE}</td>
</tr>`;
}

/** The refunds, newest first, or the word that there are none. */
function refundsBody(refunds: Refund[]): SafeHtml {
  const C = R.columns;
  return html`<div id="refunds-body" data-count="${refunds.length}">
<p class="muted" id="refunds-empty"${refunds.length > 0 && html` hidden`}>${R.empty}</p>
<div class="scroll"${refunds.length === 0 && html` hidden`}><table class="refunds cards">
<thead><tr><th scope="col" class="num">${C.amount}</th><th scope="col">${C.status}</th><th scope="col">${C.origin}</th><th scope="col">${C.reason}</th><th scope="col">${C.createdAt}</th><th scope="col">${C.settledAt}</th></tr></thead>
<tbody id="refund-rows">
${joinHtml(refunds.map(refundRow), '\n')}
</tbody>
</table></div>
</div>`;
}

function availableFigure(cents: number): SafeHtml {
  return html`<strong id="refund-available" data-cents="${cents}">${formatBrl(cents / 100)}</strong>`;
}

/**
 * The parts of the page a refund or a status change moves, each by its id: the page's script
 * swaps them for the ones the timeline's refresh brings.
 */
export function livePaymentParts(payment: Payment, refunds: Refund[]): SafeHtml {
  return html`${refundsBody(refunds)}
<span id="refunded-amount">${formatBrl(payment.refundedAmount)}</span>
${availableFigure(refundableCents(payment, refunds))}`;
}

function refundSection(view: PaymentView): SafeHtml {
  const F = P.refund;
  const p = view.payment;
  const left = refundableCents(p, view.refunds);
  return html`<section class="card" id="refund-section" aria-labelledby="refund-title"${p.status !== 'approved' && html` hidden`}>
<h2 id="refund-title">${F.title}</h2>
<p class="hint">${F.intro}</p>
<p class="available">${F.available} ${availableFigure(left)}</p>
<form id="refund-form" class="stack refund-form" method="post" action="/dashboard/pagamentos/${p.id}/reembolsos" novalidate>
<input type="hidden" name="refundId" id="refund-id" value="${view.refundId}">
<label for="refund-amount">${F.amountLabel}</label>
<input id="refund-amount" name="amount" inputmode="decimal" autocomplete="off" aria-describedby="refund-amount-hint">
<p class="hint field-hint" id="refund-amount-hint">${F.amountHint}</p>
<label for="refund-reason">${F.reasonLabel}</label>
<textarea id="refund-reason" name="reason" rows="2" maxlength="${MAX_REFUND_REASON_CHARS}" aria-describedby="refund-reason-hint"></textarea>
<p class="hint field-hint" id="refund-reason-hint">${F.reasonHint}</p>
<div><button type="submit" class="primary" id="refund-submit">${F.submit}</button></div>
</form>
<p id="refund-answer" class="answer-line" role="status"></p>
</section>`;
}

function cancelSection(payment: Payment): SafeHtml {
  const C = P.cancel;
  return html`<section class="card" id="cancel-section" aria-labelledby="cancel-title"${payment.status !== 'pending' && html` hidden`}>
<h2 id="cancel-title">${C.title}</h2>
<p class="hint">${C.intro}</p>
<button type="button" class="danger" id="cancel-open" aria-haspopup="dialog">${C.button}</button>
<dialog id="cancel-dialog" aria-labelledby="cancel-dialog-title" aria-describedby="cancel-dialog-text">
<h2 id="cancel-dialog-title">${C.confirmTitle}</h2>
<p id="cancel-dialog-text">${C.confirmText}</p>
<div class="actions">
<button type="button" id="cancel-keep" autofocus>${C.keep}</button>
<button type="button" class="danger" id="cancel-confirm">${C.confirm}</button>
</div>
</dialog>
</section>`;
}

/** One payment: its fields, QR and code, the hosted page link, its actions, refunds and timeline. */
export function paymentPage(view: PaymentView): string {
  const p = view.payment;
  const F = P.fields;
  const qr =
    p.qrCopyPaste !== null
      ? html`<img class="qr" src="/public-api/v1/qrcodes/${p.id}.png" alt="${P.qrAlt}" width="200" height="200">
<label for="code">${P.code}</label>
<textarea id="code" class="code" readonly rows="4" spellcheck="false">${p.qrCopyPaste}</textarea>`
      : html`<p>${P.codePending}</p>`;
  return layout(
    {
      title: `${P.title} ${formatBrl(p.amount)}`,
      script: view.script,
      store: view.store,
      live: true,
      data: { page: 'payment', 'payment-id': p.id },
    },
    html`<p><a href="/dashboard/pagamentos">← ${P.back}</a></p>
<div class="heading">
<h1>${P.title} <span class="amount" id="amount">${formatBrl(p.amount)}</span></h1>
<p class="status-now" role="status" aria-live="polite">${statusBadge(p.status, 'status')}</p>
</div>
<p id="payment-answer" class="answer-line payment-answer" role="status"></p>
<div class="grid">
<section class="card" aria-labelledby="fields-title">
<h2 id="fields-title" class="visually-hidden">Dados</h2>
<dl class="fields">
${field(F.id, html`<code>${p.id}</code>`)}
${field(F.amount, formatBrl(p.amount))}
${field(F.refundedAmount, html`<span id="refunded-amount">${formatBrl(p.refundedAmount)}</span>`)}
${field(F.createdAt, timeTag(p.createdAt))}
${field(F.expiresAt, timeTag(p.expiresAt), 'expires-at')}
${field(F.email, orNone(p.email))}
${field(F.observation, orNone(p.observation))}
${field(F.webhookUrl, p.webhookUrl ? html`<code>${p.webhookUrl}</code>` : NONE)}
${field(F.page, html`<a href="${view.pageUrl}" id="hosted-page">${P.openPage}</a>`)}
</dl>
</section>
<section class="card pix" aria-labelledby="pix-title">
<h2 id="pix-title">Pix</h2>
${qr}
</section>
</div>
${cancelSection(p)}
${refundSection(view)}
<section class="card" aria-labelledby="refunds-title">
<h2 id="refunds-title">${R.title}</h2>
<div id="refunds" aria-live="polite">
${refundsBody(view.refunds)}
</div>
</section>
${view.sandbox && sandboxSection(p.id)}
<section class="card" aria-labelledby="timeline-title">
<h2 id="timeline-title">${P.timeline}</h2>
<p class="hint">${T.timezoneNote}</p>
<div id="timeline" aria-live="polite">
${timeline(p, view.events)}
</div>
<p id="redeliver-answer" class="answer-line" role="status"></p>
</section>`,
  );
}
