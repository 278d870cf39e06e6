import type { LivePayment } from '../live-messages';
import { byId, follow, serverMarkup, TEXTS } from './connection';
import { element } from './element';

/** Rows a page of the list holds (the server's PAGE_SIZE). */
const PAGE_SIZE = 20;

/** A payment's row as the server renders it (html/payments.ts), from the stream's data. */
function paymentRow(update: LivePayment): HTMLElement {
  const { row } = update;
  const C = TEXTS.columns;
  const webhook =
    row.webhook === null
      ? element('span', { class: 'muted', 'aria-label': TEXTS.noWebhook }, row.webhookLabel)
      : element('span', { class: `hook hook-${row.webhook}` }, row.webhookLabel);
  return element(
    'tr',
    { id: `p-${update.id}`, 'data-id': update.id, 'data-status': update.status },
    element(
      'td',
      { 'data-label': C.amount, class: 'num' },
      element('a', { href: `/dashboard/pagamentos/${encodeURIComponent(update.id)}` }, row.amount),
    ),
    element('td', { 'data-label': C.status, class: 'status-cell' }, badge(update)),
    element(
      'td',
      { 'data-label': C.createdAt },
      element('time', { datetime: row.createdAt, title: row.createdAtUtc }, row.createdAtText),
    ),
    element('td', { 'data-label': C.email, class: 'email' }, row.email ?? element('span', { class: 'muted' }, '—')),
    element('td', { 'data-label': C.webhook, class: 'hook-cell' }, webhook),
  );
}

function badge(update: LivePayment): HTMLElement {
  return element('span', { class: `badge badge-${update.status}`, 'data-status': update.status }, update.statusLabel);
}

/** Pagamentos: rows appear and change as the stream tells. */
export function paymentsList(): void {
  const rows = byId('rows');
  const total = byId('total');
  const empty = byId('empty');
  const filter = document.body.dataset.filter ?? '';
  const firstPage = document.body.dataset.firstPage === 'true';

  const setTotal = (n: number) => {
    total.dataset.total = String(n);
    total.textContent = n === 1 ? TEXTS.total.one : TEXTS.total.many.replace('{n}', n.toLocaleString('pt-BR'));
  };
  const addToTotal = (delta: number) => setTotal(Number(total.dataset.total) + delta);
  const matches = (status: string) => !filter || filter === status;

  // Rows are newest first: a row goes before the first older one.
  const insertRow = (row: HTMLElement, at: string) => {
    const older = Array.from(rows.children).find((child) => {
      const time = child.querySelector('time');
      return time !== null && (time.getAttribute('datetime') ?? '') < at;
    });
    if (older) rows.insertBefore(row, older);
    else if (rows.children.length < PAGE_SIZE) rows.appendChild(row);
    else return;
    while (rows.children.length > PAGE_SIZE) rows.lastElementChild?.remove();
    row.classList.add('fresh');
    setTimeout(() => row.classList.remove('fresh'), 4000);
    empty.hidden = true;
  };

  follow({
    payment(update) {
      const existing = document.getElementById(`p-${update.id}`);
      if (update.event === 'payment.created') {
        if (existing || !matches(update.status)) return;
        addToTotal(1);
        if (firstPage) insertRow(paymentRow(update), update.row.createdAt);
        return;
      }
      if (existing) {
        existing.dataset.status = update.status;
        existing.querySelector('.status-cell')?.replaceChildren(badge(update));
        if (!matches(update.status)) {
          existing.remove();
          addToTotal(-1);
          empty.hidden = rows.children.length > 0;
        }
      } else if (filter && filter === update.status) {
        addToTotal(1);
        if (firstPage) insertRow(paymentRow(update), update.row.createdAt);
      }
    },
    ready(reconnected) {
      if (!reconnected) return;
      // Events may have been missed while disconnected: take the page as it is now.
      fetch(location.href, { credentials: 'same-origin' })
        .then((res) => res.text())
        .then((page) => {
          const fresh = serverMarkup(page);
          const freshRows = fresh.getElementById('rows');
          const freshTotal = fresh.getElementById('total');
          if (!freshRows || !freshTotal) return;
          rows.replaceChildren(...Array.from(freshRows.children, (row) => document.importNode(row, true)));
          setTotal(Number(freshTotal.dataset.total));
          empty.hidden = rows.children.length > 0;
        })
        .catch(() => undefined);
    },
  });
}
