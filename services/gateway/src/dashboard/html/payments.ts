import {
  DashboardTexts as T,
  PUBLIC_STATUSES,
  StatusLabels,
  type Payment,
  type PaymentWebhookState,
  type PublicStatus,
} from '@pix/contracts';
import { html, joinHtml, type SafeHtml } from '../../pages/html';
import type { LayoutOptions } from './layout';
import { formatBrl, layout, NO_WEBHOOK, statusBadge, timeTag } from './layout';

/** One row's cells, as the page renders them. */
export interface PaymentRow {
  id: string;
  status: Payment['status'];
  amount: number;
  createdAt: string;
  email: string | null;
  /** Null when the payment has no webhook deliveries (no webhookUrl). */
  webhook: PaymentWebhookState | null;
}

function webhookCell(state: PaymentWebhookState | null): SafeHtml {
  if (state === null) return html`<span class="muted" aria-label="${NO_WEBHOOK}">${T.webhookStates.none}</span>`;
  return html`<span class="hook hook-${state}">${T.webhookStates[state]}</span>`;
}

/** One row of the table; the script builds the rows the stream announces in the same shape (browser/payments-list.ts). */
function paymentRow(row: PaymentRow): SafeHtml {
  return html`<tr id="p-${row.id}" data-id="${row.id}" data-status="${row.status}">
<td data-label="${T.payments.columns.amount}" class="num"><a href="/dashboard/pagamentos/${row.id}">${formatBrl(row.amount)}</a></td>
<td data-label="${T.payments.columns.status}" class="status-cell">${statusBadge(row.status)}</td>
<td data-label="${T.payments.columns.createdAt}">${timeTag(row.createdAt)}</td>
<td data-label="${T.payments.columns.email}" class="email">${row.email || html`<span class="muted">—</span>`}</td>
<td data-label="${T.payments.columns.webhook}" class="hook-cell">${webhookCell(row.webhook)}</td>
</tr>`;
}

export interface PaymentsView {
  script: string;
  store: NonNullable<LayoutOptions['store']>;
  rows: PaymentRow[];
  status: PublicStatus | null;
  page: number;
  limit: number;
  total: number;
}

function pageLink(view: PaymentsView, page: number): string {
  const params = new URLSearchParams();
  if (view.status) params.set('status', view.status);
  if (page > 1) params.set('pagina', String(page));
  const query = params.toString();
  return `/dashboard/pagamentos${query ? `?${query}` : ''}`;
}

/** The store's payments, newest first, one page, with the status filter and the total. */
export function paymentsPage(view: PaymentsView): string {
  const pages = Math.max(1, Math.ceil(view.total / view.limit));
  const options = [
    html`<option value="">${T.payments.filterAll}</option>`,
    ...PUBLIC_STATUSES.map(
      (s) => html`<option value="${s}"${view.status === s && html` selected`}>${StatusLabels[s]}</option>`,
    ),
  ];
  const body = joinHtml(view.rows.map(paymentRow), '\n');
  const pager =
    pages > 1 &&
    html`<nav class="pager" aria-label="Paginação">
${view.page > 1 ? html`<a href="${pageLink(view, view.page - 1)}" rel="prev">${T.payments.previous}</a>` : html`<span></span>`}
<span>${T.payments.page(view.page, pages)}</span>
${view.page < pages ? html`<a href="${pageLink(view, view.page + 1)}" rel="next">${T.payments.next}</a>` : html`<span></span>`}
</nav>`;
  return layout(
    {
      title: T.payments.title,
      script: view.script,
      store: view.store,
      live: true,
      data: { page: 'payments', filter: view.status ?? '', 'first-page': String(view.page === 1) },
    },
    html`<div class="heading">
<h1>${T.payments.title}</h1>
<p class="total" id="total" data-total="${view.total}" aria-live="polite">${T.payments.total(view.total)}</p>
</div>
<form method="get" action="/dashboard/pagamentos" class="filter">
<label for="status">${T.payments.filterLabel}</label>
<select id="status" name="status">${options}</select>
<button type="submit">${T.payments.filterSubmit}</button>
</form>
<p class="hint">${T.timezoneNote}</p>
<table class="payments cards" id="payments">
<caption class="visually-hidden">${T.payments.title}</caption>
<thead><tr><th scope="col" class="num">${T.payments.columns.amount}</th><th scope="col">${T.payments.columns.status}</th><th scope="col">${T.payments.columns.createdAt}</th><th scope="col">${T.payments.columns.email}</th><th scope="col">${T.payments.columns.webhook}</th></tr></thead>
<tbody id="rows">
${body}
</tbody>
</table>
<p class="empty" id="empty"${view.rows.length > 0 && html` hidden`}>${T.payments.empty}</p>
${pager}`,
  );
}
