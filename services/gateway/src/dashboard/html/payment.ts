import { DashboardTexts as T, StatusLabels, type Payment, type PublicEventDetail } from '@pix/contracts';
import type { LayoutOptions } from './layout';
import { escapeHtml, formatBrl, layout, statusBadge, timeTag } from './layout';

const P = T.payment;

export interface PaymentView {
  store: NonNullable<LayoutOptions['store']>;
  payment: Payment;
  /** The payment's hosted page, for the customer. */
  pageUrl: string;
  events: PublicEventDetail[];
  sandbox: boolean;
}

function field(label: string, value: string, id?: string): string {
  return `<div><dt>${label}</dt><dd${id ? ` id="${id}"` : ''}>${value}</dd></div>`;
}

function orNone(text: string | null): string {
  return text ? escapeHtml(text) : '<span class="muted">—</span>';
}

function duration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1).replace('.', ',')} s`;
}

function attemptRows(event: PublicEventDetail): string {
  return event.attempts
    .map((a) => {
      const answer =
        a.outcome === null
          ? `<span class="muted">${P.inFlight}</span>`
          : a.statusCode !== null
            ? `<span><span class="http http-${a.outcome}">HTTP ${a.statusCode}</span>${a.error && a.outcome !== 'success' && a.error !== `HTTP ${a.statusCode}` ? ` <span class="muted">${escapeHtml(a.error)}</span>` : ''}</span>`
            : `<span class="http http-${a.outcome}">${escapeHtml(a.error ?? a.outcome)}</span>`;
      const which = a.run > 1 ? `${a.attempt} · ${P.rerun(a.run - 1)}` : String(a.attempt);
      return `<tr data-outcome="${a.outcome ?? 'in_flight'}" data-run="${a.run}"><td data-label="${P.attempt}">${which}</td><td data-label="${P.attemptAt}">${timeTag(a.at)}</td><td data-label="${P.httpStatus}" class="answer">${answer}</td><td data-label="${P.duration}" class="num">${duration(a.latencyMs)}</td></tr>`;
    })
    .join('\n');
}

function eventTitle(event: PublicEventDetail): string {
  const { body } = event;
  switch (body.event) {
    case 'payment.created':
      return P.created;
    case 'payment.status_changed':
      return P.statusChange(StatusLabels[body.previousStatus], StatusLabels[body.status]);
    case 'refund.created':
    case 'refund.succeeded':
    case 'refund.failed':
      return P.refundEvents[body.event](formatBrl(body.amount));
  }
}

/** One event: what happened, its delivery's state, each attempt, and Reenviar. */
function eventItem(event: PublicEventDetail): string {
  const next =
    event.status === 'pending' && event.nextAttemptAt
      ? `<p class="next">${P.nextRetry}: ${timeTag(event.nextAttemptAt)}</p>`
      : '';
  const disabled = event.status === 'pending' ? ' disabled' : '';
  return `<li class="event" id="${event.id}" data-event-id="${event.id}" data-type="${event.type}" data-delivery="${event.status}">
<div class="event-head">
<h3>${eventTitle(event)}</h3>
<p class="event-meta">${timeTag(event.createdAt)} · <code>${event.type}</code> · <span class="delivery delivery-${event.status}">${P.deliveryStatus[event.status]}</span></p>
<p class="event-meta">webhook-id <code class="webhook-id">${event.id}</code></p>
</div>
${
  event.attempts.length > 0
    ? `<div class="scroll"><table class="attempts cards">
<thead><tr><th scope="col">${P.attempt}</th><th scope="col">${P.attemptAt}</th><th scope="col">${P.httpStatus}</th><th scope="col" class="num">${P.duration}</th></tr></thead>
<tbody>
${attemptRows(event)}
</tbody>
</table></div>`
    : ''
}
${next}
<button type="button" class="redeliver" data-redeliver="${event.id}"${disabled}>${P.redeliver}</button>
</li>`;
}

/** The timeline: every event of the payment, oldest first (also served alone, for live refreshes). */
export function timeline(payment: Payment, events: PublicEventDetail[]): string {
  const items = [...events].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const body =
    items.length > 0
      ? `<ol class="events">\n${items.map(eventItem).join('\n')}\n</ol>`
      : `<p class="muted">${P.created}: ${timeTag(payment.createdAt)}</p>\n<p>${P.noEvents}</p>`;
  return `<div id="timeline-body" data-pending="${items.some((e) => e.status === 'pending')}" data-next="${
    items
      .map((e) => (e.status === 'pending' ? (e.nextAttemptAt ?? '') : ''))
      .filter(Boolean)
      .sort()[0] ?? ''
  }">
${body}
</div>`;
}

function sandboxSection(id: string): string {
  const A = P.sandboxActions;
  return `<section class="card sandbox" aria-labelledby="sandbox-title">
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
<h3>${P.answer}</h3>
<pre id="sandbox-answer" class="answer-box" role="status" aria-live="polite" data-payment-id="${id}"></pre>
</section>`;
}

/** One payment: its fields, QR and code, the hosted page link, the timeline and the actions. */
export function paymentPage(view: PaymentView): string {
  const p = view.payment;
  const F = P.fields;
  const qr =
    p.qrCopyPaste !== null
      ? `<img class="qr" src="/public-api/v1/qrcodes/${p.id}.png" alt="${P.qrAlt}" width="200" height="200">
<label for="code">${P.code}</label>
<textarea id="code" class="code" readonly rows="4" spellcheck="false">${escapeHtml(p.qrCopyPaste)}</textarea>`
      : `<p>${P.codePending}</p>`;
  return layout(
    {
      title: `${P.title} ${formatBrl(p.amount)}`,
      store: view.store,
      live: true,
      data: { page: 'payment', 'payment-id': p.id },
    },
    `<p><a href="/dashboard/pagamentos">← ${P.back}</a></p>
<div class="heading">
<h1>${P.title} <span class="amount" id="amount">${formatBrl(p.amount)}</span></h1>
<p class="status-now" role="status" aria-live="polite">${statusBadge(p.status, 'status')}</p>
</div>
<div class="grid">
<section class="card" aria-labelledby="fields-title">
<h2 id="fields-title" class="visually-hidden">Dados</h2>
<dl class="fields">
${field(F.id, `<code>${p.id}</code>`)}
${field(F.amount, formatBrl(p.amount))}
${field(F.createdAt, timeTag(p.createdAt))}
${field(F.email, orNone(p.email))}
${field(F.observation, orNone(p.observation))}
${field(F.webhookUrl, p.webhookUrl ? `<code>${escapeHtml(p.webhookUrl)}</code>` : orNone(null))}
${field(F.page, `<a href="${escapeHtml(view.pageUrl)}" id="hosted-page">${P.openPage}</a>`)}
</dl>
</section>
<section class="card pix" aria-labelledby="pix-title">
<h2 id="pix-title">Pix</h2>
${qr}
</section>
</div>
${view.sandbox ? sandboxSection(p.id) : ''}
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
