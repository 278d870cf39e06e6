import { DashboardTexts as T, type EndpointStats, type EndpointStatsReply } from '@pix/contracts';
import { html, joinHtml, type SafeHtml } from '../../pages/html';
import type { LayoutOptions } from './layout';
import { layout, timeTag } from './layout';

const W = T.webhooks;

export interface WebhooksView {
  script: string;
  store: NonNullable<LayoutOptions['store']>;
  stats: EndpointStatsReply;
  /** The store's current signing secrets, only after the merchant asked to see them. */
  secrets: string[] | null;
}

/**
 * What a receiver does with a delivery, in the SDK the merchant picks: a radio per language and
 * one snippet each; the stylesheet shows the picked one (no script needed), and a browser without
 * :has() shows all three.
 */
function sdkSnippets(): SafeHtml {
  const languages = Object.entries(W.sdkSnippets);
  const radios = languages.map(
    ([lang, { label }], i) =>
      html`<span class="lang"><input type="radio" name="sdk-lang" id="lang-${lang}" value="${lang}"${i === 0 && html` checked`}><label for="lang-${lang}">${label}</label></span>`,
  );
  const snippets = languages.map(
    ([lang, { code }]) =>
      html`<pre class="snippet" id="snippet-${lang}" data-lang="${lang}"><code>${code}</code></pre>`,
  );
  return html`<div class="sdk">
<fieldset class="lang-picker">
<legend>${W.sdkLanguage}</legend>
${joinHtml(radios, '\n')}
</fieldset>
${joinHtml(snippets, '\n')}
</div>`;
}

function percent(stats: EndpointStats): string {
  const rate = (stats.failing + stats.dead) / stats.deliveries;
  return `${(rate * 100).toLocaleString('pt-BR', { maximumFractionDigits: 1 })}%`;
}

function ratesTable(stats: EndpointStatsReply): SafeHtml {
  if (stats.endpoints.length === 0) return html`<p class="muted" id="rates-empty">${W.ratesEmpty}</p>`;
  const C = W.ratesColumns;
  const rows = stats.endpoints.map(
    (e) =>
      html`<tr data-url="${e.url}"><th scope="row" class="url"><code>${e.url}</code></th><td class="num">${e.deliveries}</td><td class="num">${e.delivered}</td><td class="num">${e.failing}</td><td class="num">${e.dead}</td><td class="num">${e.attempts}</td><td class="num rate${e.failing + e.dead > 0 && ' bad'}">${percent(e)}</td></tr>`,
  );
  return html`<div class="scroll"><table class="rates" id="rates">
<thead><tr><th scope="col">${C.url}</th><th scope="col" class="num">${C.deliveries}</th><th scope="col" class="num">${C.delivered}</th><th scope="col" class="num">${C.failing}</th><th scope="col" class="num">${C.dead}</th><th scope="col" class="num">${C.attempts}</th><th scope="col" class="num">${C.rate}</th></tr></thead>
<tbody>
${joinHtml(rows, '\n')}
</tbody>
</table></div>
${stats.truncated && html`<p class="hint">${W.ratesTruncated(stats.read)}</p>`}`;
}

/** How to verify signatures (the secret shown on request), and the failure rates per endpoint. */
export function webhooksPage(view: WebhooksView): string {
  const headers = Object.entries(W.headerMeanings).map(
    ([name, meaning]) => html`<tr><th scope="row"><code>${name}</code></th><td>${meaning}</td></tr>`,
  );
  const secret =
    view.secrets === null
      ? html`<p>${W.secretHidden}</p>
<form method="post" action="/dashboard/webhooks/segredo">
<input type="hidden" name="csrf" value="${view.store.csrf}">
<button type="submit" id="reveal">${W.reveal}</button>
</form>`
      : joinHtml(
          view.secrets.map(
            (s, i) =>
              html`<label for="secret-${i}">${W.secretLabel}${i > 0 && ` (${i + 1})`}</label>\n<input id="secret-${i}" class="code secret" readonly value="${s}" spellcheck="false" autocomplete="off">`,
          ),
          '\n',
        );
  return layout(
    { title: W.title, script: view.script, store: view.store, data: { page: 'webhooks' } },
    html`<h1>${W.title}</h1>
<section class="card" aria-labelledby="rates-title">
<h2 id="rates-title">${W.ratesTitle}</h2>
<p class="hint">Desde ${timeTag(view.stats.since)}.</p>
${ratesTable(view.stats)}
</section>
<section class="card" aria-labelledby="verify-title">
<h2 id="verify-title">${W.verifyTitle}</h2>
<p>${W.verifyIntro}</p>
<div class="scroll"><table class="headers">
<thead><tr><th scope="col">${W.headers.name}</th><th scope="col">${W.headers.meaning}</th></tr></thead>
<tbody>
${joinHtml(headers, '\n')}
</tbody>
</table></div>
<h3>${W.secretTitle}</h3>
${secret}
<h3>${W.sdkTitle}</h3>
${sdkSnippets()}
</section>`,
  );
}
