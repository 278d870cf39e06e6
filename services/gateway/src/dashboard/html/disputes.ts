import { DashboardTexts as T, MAX_DISPUTE_DEFENSE_CHARS, type OpenDisputeList } from '@pix/contracts';
import { html, joinHtml, type SafeHtml } from '../../pages/html';
import { formatBrl, layout, timeTag, type LayoutOptions } from './layout';

const D = T.disputes;

export interface DisputesView {
  script: string;
  store: NonNullable<LayoutOptions['store']>;
  disputes: OpenDisputeList;
  /** What the last defence sent answered: taken, or the refusal's message. */
  notice?: { ok: boolean; text: string };
}

/** One open dispute: its payment, what is at risk, the payer's claim, the deadline, and the defence (sent, or a form). */
function disputeItem(item: OpenDisputeList['items'][number], csrf: string, now: number): SafeHtml {
  const { paymentId, amount, dispute } = item;
  const late = Date.parse(dispute.deadlineAt) <= now;
  const defense = dispute.defense
    ? html`<p class="defense"><strong>${D.defended}</strong> ${timeTag(dispute.defense.sentAt)}:</p>\n<blockquote>${dispute.defense.text}</blockquote>`
    : late
      ? html`<p class="muted">${D.deadlinePassed}</p>`
      : html`<form method="post" action="/dashboard/contestacoes/${paymentId}/defesa" class="defense-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="defense-${paymentId}">${D.defenseLabel}</label>
<textarea id="defense-${paymentId}" name="text" rows="4" maxlength="${String(MAX_DISPUTE_DEFENSE_CHARS)}" required></textarea>
<button type="submit">${D.submit}</button>
</form>`;
  const C = D.columns;
  return html`<li class="card dispute" data-payment-id="${paymentId}" data-deadline="${dispute.deadlineAt}">
<dl>
<dt>${C.payment}</dt><dd><a href="/dashboard/pagamentos/${paymentId}"><code>${paymentId}</code></a></dd>
<dt>${C.amount}</dt><dd>${formatBrl(amount)}</dd>
<dt>${C.amountAtRisk}</dt><dd class="at-risk">${formatBrl(dispute.amountAtRisk)}</dd>
<dt>${C.reason}</dt><dd>${dispute.reason}</dd>
<dt>${C.deadline}</dt><dd class="deadline${late && ' bad'}">${timeTag(dispute.deadlineAt)}</dd>
</dl>
${defense}
</li>`;
}

/** Contestações: the store's open disputes, the nearest deadline first, each with its defence form. */
export function disputesPage(view: DisputesView, now = Date.now()): string {
  const items = view.disputes.items.map((item) => disputeItem(item, view.store.csrf, now));
  const notice =
    view.notice &&
    html`<p class="notice${!view.notice.ok && ' error'}" role="status" id="notice">${view.notice.text}</p>`;
  return layout(
    { title: D.title, script: view.script, store: view.store, data: { page: 'disputes' } },
    html`<h1>${D.title}</h1>
<p>${D.intro}</p>
${notice}
${
  items.length === 0
    ? html`<p class="muted" id="disputes-empty">${D.empty}</p>`
    : html`<ul class="disputes" id="disputes">
${joinHtml(items, '\n')}
</ul>`
}`,
  );
}
