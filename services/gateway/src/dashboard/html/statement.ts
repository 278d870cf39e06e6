import { DashboardTexts as T, type Statement, type StatementMonth } from '@pix/contracts';
import { html, joinHtml, type SafeHtml } from '../../pages/html';
import type { LayoutOptions } from './layout';
import { formatBrl, layout } from './layout';

const S = T.statement;

export interface StatementView {
  script: string;
  store: NonNullable<LayoutOptions['store']>;
  month: StatementMonth;
  /** The months before and after, when there are (none after the current one). */
  previous: string | null;
  next: string | null;
}

/** 2026-11-28 as 28/11/2026. */
function brDate(day: string): string {
  return `${day.slice(8, 10)}/${day.slice(5, 7)}/${day.slice(0, 4)}`;
}

/** A sum of money going out, shown as what it took. */
function out(amount: number): SafeHtml {
  return amount === 0 ? html`<span class="muted">${formatBrl(0)}</span>` : html`−${formatBrl(amount)}`;
}

function dayRow(day: Statement): SafeHtml {
  const C = S.columns;
  const movements = day.counts.received + day.counts.refunded + day.counts.returnedByMed;
  return html`<tr id="d-${day.date}" data-date="${day.date}">
<th scope="row" data-label="${C.day}">${brDate(day.date)}</th>
<td data-label="${C.received}" class="num">${formatBrl(day.received)}</td>
<td data-label="${C.refunded}" class="num">${out(day.refunded)}</td>
<td data-label="${C.returnedByMed}" class="num">${out(day.returnedByMed)}</td>
<td data-label="${C.atRisk}" class="num">${formatBrl(day.atRisk)}</td>
<td data-label="${C.net}" class="num net${day.net < 0 && ' bad'}">${day.net < 0 ? html`−${formatBrl(-day.net)}` : formatBrl(day.net)}</td>
<td data-label="${C.movements}" class="num">${movements}</td>
<td data-label="${C.csv}"><a href="/dashboard/extrato/${day.date}.csv" download>${S.csvDay}</a></td>
</tr>`;
}

function sum(days: Statement[], pick: (d: Statement) => number): number {
  return days.reduce((total, day) => total + Math.round(pick(day) * 100), 0) / 100;
}

/** A month of the store's statement, a line per day that had a movement, with the month's CSV. */
export function statementPage(view: StatementView): string {
  const { month, days } = view.month;
  const C = S.columns;
  const label = `${month.slice(5, 7)}/${month.slice(0, 4)}`;
  const net = sum(days, (d) => d.net);
  const pager = html`<nav class="pager" aria-label="${S.months}">
${view.previous && html`<a href="/dashboard/extrato?mes=${view.previous}" rel="prev">${S.previous}</a>`}
${view.next && html`<a href="/dashboard/extrato?mes=${view.next}" rel="next">${S.next}</a>`}
</nav>`;
  const table =
    days.length === 0
      ? html`<p class="muted" id="statement-empty">${S.empty}</p>`
      : html`<div class="scroll"><table class="statement" id="statement">
<thead><tr><th scope="col">${C.day}</th><th scope="col" class="num">${C.received}</th><th scope="col" class="num">${C.refunded}</th><th scope="col" class="num">${C.returnedByMed}</th><th scope="col" class="num">${C.atRisk}</th><th scope="col" class="num">${C.net}</th><th scope="col" class="num">${C.movements}</th><th scope="col">${C.csv}</th></tr></thead>
<tbody>
${joinHtml(days.map(dayRow), '\n')}
</tbody>
<tfoot><tr id="month-total"><th scope="row">${S.total}</th><td class="num">${formatBrl(sum(days, (d) => d.received))}</td><td class="num">${out(sum(days, (d) => d.refunded))}</td><td class="num">${out(sum(days, (d) => d.returnedByMed))}</td><td class="num"></td><td class="num net">${net < 0 ? html`−${formatBrl(-net)}` : formatBrl(net)}</td><td class="num"></td><td></td></tr></tfoot>
</table></div>`;
  return layout(
    { title: S.title, script: view.script, store: view.store, data: { page: 'statement' } },
    html`<h1>${S.title} <span class="muted">${label}</span></h1>
<p class="hint">${S.intro}</p>
<p><a href="/dashboard/extrato/${month}.csv" id="csv-month" download>${S.csvMonth}</a></p>
${table}
${pager}`,
  );
}
