import { DashboardTexts } from '@pix/contracts';

/** Webhooks page: of the SDK snippets, only the picked language's (html/webhooks.ts renders a radio per language). */
const PICKED_SNIPPET_ONLY = `${Object.keys(DashboardTexts.webhooks.sdkSnippets)
  .map((lang) => `.sdk:has(#lang-${lang}:checked) .snippet:not([data-lang="${lang}"])`)
  .join(',\n')} { display: none; }`;

/**
 * The dashboard's styles. Text meets WCAG AA (4.5:1) on its background, focus is always visible,
 * and below 40rem the tables turn into one card per row so nothing needs sideways scrolling at
 * 320 px (each cell shows its column's name from its data-label, class `cards`).
 */
export const DASHBOARD_STYLE = `*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; font-size: 100%; line-height: 1.5; color: #1b1b1f; background: #f4f5f7; }
body { margin: 0; }
a { color: #0b4f8a; }
a:hover { color: #083d6e; }
code, pre, .code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.875rem; }
code { overflow-wrap: anywhere; }
:focus-visible { outline: 3px solid #1a4fd6; outline-offset: 2px; }
.top { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem 1rem; padding: 0.75rem 1rem; background: #14213d; color: #ffffff; }
.top a { color: #ffffff; text-decoration: none; padding: 0.375rem 0.5rem; border-radius: 0.375rem; }
.top a:hover { background: #24365e; color: #ffffff; }
.top a[aria-current="page"] { text-decoration: underline; text-underline-offset: 0.3em; font-weight: 700; }
.top :focus-visible { outline-color: #ffd23f; }
.brand .product { font-weight: 700; }
.brand .store { color: #d7dcea; margin-left: 0.5rem; }
nav[aria-label="Painel"] { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem; }
.logout { margin: 0; }
.logout button { font: inherit; color: #ffffff; background: transparent; border: 1px solid #9aa6c4; border-radius: 0.375rem; padding: 0.3rem 0.75rem; cursor: pointer; }
.logout button:hover { background: #24365e; }
.live { margin: 0; font-size: 0.875rem; color: #d7dcea; width: 100%; }
.live::before { content: ""; display: inline-block; width: 0.6rem; height: 0.6rem; margin-right: 0.4rem; border-radius: 50%; background: #9aa6c4; }
.live[data-live="on"]::before { background: #4cd07d; }
.content { max-width: 70rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 0.75rem; }
h2 { font-size: 1.125rem; margin: 0 0 0.75rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.5rem; }
.heading { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 0.25rem 1rem; }
.total { margin: 0; color: #44464f; font-weight: 600; }
.hint, .muted { color: #55585f; }
.hint { font-size: 0.875rem; margin: 0.25rem 0 0.75rem; }
.card { background: #ffffff; border-radius: 0.75rem; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.15); padding: 1rem 1.25rem; margin: 0 0 1rem; }
.narrow { max-width: 30rem; margin: 2rem auto; }
.stack { display: flex; flex-direction: column; gap: 0.5rem; }
label { font-weight: 600; }
input, select, textarea { font: inherit; color: #1b1b1f; background: #ffffff; border: 1px solid #6b6e78; border-radius: 0.375rem; padding: 0.45rem 0.6rem; min-height: 2.5rem; max-width: 100%; }
button { font: inherit; font-weight: 600; min-height: 2.5rem; padding: 0.4rem 0.9rem; color: #0b4f8a; background: #ffffff; border: 2px solid #0b4f8a; border-radius: 0.5rem; cursor: pointer; }
button:hover { background: #e8effc; }
button.primary { color: #ffffff; background: #0b5394; border-color: #0b5394; }
button.primary:hover { background: #083d6e; }
button.danger { color: #ffffff; background: #a4161a; border-color: #a4161a; }
button.danger:hover { background: #7f1013; border-color: #7f1013; }
button:disabled { color: #55585f; border-color: #8d9099; background: #eeeff2; cursor: not-allowed; }
.error { color: #8a1515; background: #fbe7e7; padding: 0.5rem 0.75rem; border-radius: 0.5rem; font-weight: 600; }
.notice { color: #123a85; background: #e8effc; padding: 0.5rem 0.75rem; border-radius: 0.5rem; }
.filter { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; margin: 0 0 0.25rem; }
table { width: 100%; border-collapse: collapse; background: #ffffff; }
th, td { text-align: left; padding: 0.55rem 0.75rem; border-bottom: 1px solid #d5d7de; vertical-align: top; }
thead th { font-size: 0.875rem; color: #44464f; background: #eceef2; }
.payments { border-radius: 0.75rem; overflow: hidden; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.15); }
.payments tbody tr:hover { background: #f7f8fa; }
.payments .num a { font-weight: 700; white-space: nowrap; }
.num { font-variant-numeric: tabular-nums; }
td.num, th.num { text-align: right; }
.email { overflow-wrap: anywhere; }
tr.fresh { background: #fff8d6; }
.badge { display: inline-block; padding: 0.1rem 0.55rem; border-radius: 999px; font-size: 0.875rem; font-weight: 700; white-space: nowrap; }
.badge-pending { background: #e8effc; color: #123a85; }
.badge-approved, .badge-paid, .badge-withdrawal_processing, .badge-receipt_sent { background: #e3f4e8; color: #0b5c28; }
.badge-review { background: #fff3d6; color: #5c4200; }
.badge-not_approved, .badge-rejected { background: #fbe7e7; color: #8a1515; }
.hook { font-weight: 600; }
.hook-delivered { color: #0b5c28; }
.hook-pending { color: #123a85; }
.hook-failing, .hook-dead { color: #8a1515; }
.empty { padding: 1rem; }
.pager { display: flex; justify-content: space-between; align-items: center; gap: 1rem; margin: 1rem 0; }
.grid { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 1rem; }
.fields { margin: 0; }
.fields div { display: grid; grid-template-columns: 11rem minmax(0, 1fr); gap: 0.25rem 1rem; padding: 0.4rem 0; border-bottom: 1px solid #e3e5ea; }
.fields dt { color: #44464f; }
.fields dd { margin: 0; overflow-wrap: anywhere; }
.amount { white-space: nowrap; }
.status-now { margin: 0; font-size: 1.125rem; }
.pix .qr { display: block; width: 100%; max-width: 200px; height: auto; margin: 0 auto 0.75rem; image-rendering: pixelated; }
.code { display: block; width: 100%; resize: vertical; word-break: break-all; }
.sandbox .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-bottom: 0.75rem; }
.pay-amount { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
.pay-amount input { width: 8rem; }
.answer-box { min-height: 2.5rem; margin: 0; padding: 0.5rem 0.75rem; background: #f4f5f7; border: 1px solid #d5d7de; border-radius: 0.375rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.answer-box[data-ok="false"] { color: #8a1515; }
.answer-line { min-height: 1.5em; font-weight: 600; color: #0b5c28; }
.answer-line[data-ok="false"] { color: #8a1515; }
.payment-answer:empty { min-height: 0; margin: 0; }
.sandbox .later { margin: 0.75rem 0 0; }
.available { margin: 0 0 0.75rem; font-size: 1.0625rem; }
.refund-form { max-width: 30rem; }
.refund-form input { width: 10rem; }
.refund-form textarea { width: 100%; resize: vertical; }
.field-hint { margin: -0.375rem 0 0.25rem; }
.refund-pending { background: #e8effc; color: #123a85; }
.refund-succeeded { background: #e3f4e8; color: #0b5c28; }
.refund-failed { background: #fbe7e7; color: #8a1515; }
.failure-reason { display: block; margin-top: 0.25rem; font-size: 0.875rem; color: #8a1515; overflow-wrap: anywhere; }
.refund-reason { overflow-wrap: anywhere; }
.refund-amount { white-space: nowrap; }
dialog { max-width: min(32rem, calc(100vw - 2rem)); padding: 1.25rem; color: #1b1b1f; background: #ffffff; border: 0; border-radius: 0.75rem; box-shadow: 0 8px 30px rgba(0, 0, 0, 0.3); }
dialog::backdrop { background: rgba(20, 33, 61, 0.6); }
dialog h2 { margin-top: 0; }
dialog .actions { display: flex; flex-wrap: wrap; justify-content: flex-end; gap: 0.5rem; }
.events { list-style: none; margin: 0; padding: 0; }
.event { border-left: 4px solid #8d9099; padding: 0.25rem 0 0.75rem 0.9rem; margin: 0 0 1rem; }
.event[data-delivery="delivered"] { border-left-color: #1f8a4c; }
.event[data-delivery="pending"] { border-left-color: #1a4fd6; }
.event[data-delivery="dead"] { border-left-color: #b42318; }
.event h3 { margin: 0; }
.event-meta { margin: 0.15rem 0; font-size: 0.875rem; color: #44464f; }
.delivery { font-weight: 700; }
.delivery-delivered { color: #0b5c28; }
.delivery-pending { color: #123a85; }
.delivery-dead { color: #8a1515; }
.attempts { margin: 0.5rem 0; font-size: 0.875rem; }
.http-success { color: #0b5c28; font-weight: 700; }
.http-failure, .http-refused { color: #8a1515; font-weight: 700; }
.next { font-size: 0.875rem; margin: 0.25rem 0 0.5rem; }
.scroll { overflow-x: auto; }
.snippet { background: #14213d; color: #f4f5f7; padding: 0.75rem 1rem; border-radius: 0.5rem; overflow-x: auto; }
.lang-picker { display: flex; flex-wrap: wrap; align-items: center; gap: 0.25rem 1.25rem; border: 0; margin: 0 0 0.5rem; padding: 0; }
.lang-picker legend { float: left; margin-right: 1.25rem; padding: 0; color: #44464f; }
.lang { display: inline-flex; align-items: center; gap: 0.35rem; }
.lang input { margin: 0; min-height: 0; accent-color: #1a4fd6; }
${PICKED_SNIPPET_ONLY}
.secret { margin-bottom: 0.5rem; }
.rates .url { font-weight: 400; }
.rate.bad { color: #8a1515; font-weight: 700; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 40rem) {
  .content { padding: 0.75rem; }
  .grid { grid-template-columns: minmax(0, 1fr); }
  .fields div { grid-template-columns: minmax(0, 1fr); }
  .cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .cards, .cards tbody, .cards tr, .cards td { display: block; width: 100%; }
  .cards tr { border-bottom: 2px solid #d5d7de; padding: 0.25rem 0; }
  .cards td, .cards td.num { display: grid; grid-template-columns: 6.5rem minmax(0, 1fr); gap: 0.5rem; border: 0; padding: 0.25rem 0.75rem; text-align: left; }
  .cards td > * { justify-self: start; }
  .cards td::before { content: attr(data-label); color: #44464f; font-size: 0.875rem; }
}
`;

const SCRIPT_TEXTS = {
  live: DashboardTexts.live,
  networkError: DashboardTexts.payment.networkError,
  sending: DashboardTexts.payment.sending,
  total: { one: DashboardTexts.payments.total(1), many: DashboardTexts.payments.total(2).replace('2', '{n}') },
};

/**
 * The dashboard's script, plain ES2017 with no dependencies. It keeps the list and a payment's page
 * live from the store's event stream (/dashboard/stream), refreshes a payment's timeline after an
 * event, an action or a due retry (the delivery log is the dispatcher's; nothing here polls it on
 * a timer of its own) and its refunds after a refund's event, and sends the actions (refund, cancel,
 * sandbox, Reenviar) with the session's CSRF token.
 */
export const DASHBOARD_SCRIPT = `(function () {
  'use strict';
  var TEXTS = ${JSON.stringify(SCRIPT_TEXTS)};
  var body = document.body;
  var page = body.getAttribute('data-page');
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute('content') : '';
  var live = document.getElementById('live');
  var LOGIN = '/dashboard/entrar?motivo=sessao';

  function post(url, payload) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, accept: 'application/json' },
      body: JSON.stringify(payload || {})
    }).then(function (res) {
      if (res.status === 401) { location.assign(LOGIN); }
      return res.json().then(function (json) { return { status: res.status, body: json }; });
    });
  }

  function setLive(on) {
    if (!live) return;
    live.setAttribute('data-live', on ? 'on' : 'off');
    live.textContent = on ? TEXTS.live.on : TEXTS.live.off;
  }

  /**
   * Follows the store's stream; calls onEvent for each payment event, onRefund (if given) for each
   * refund event, and onReady after each (re)connection.
   */
  function follow(onEvent, onReady, onRefund) {
    var connections = 0;
    function listen() {
      var source = new EventSource('/dashboard/stream');
      source.addEventListener('ready', function () {
        connections += 1;
        setLive(true);
        onReady(connections > 1);
      });
      source.addEventListener('payment', function (event) { onEvent(JSON.parse(event.data)); });
      if (onRefund) source.addEventListener('refund', function (event) { onRefund(JSON.parse(event.data)); });
      source.addEventListener('ended', function () { source.close(); location.assign(LOGIN); });
      source.addEventListener('error', function () {
        setLive(false);
        if (source.readyState !== EventSource.CLOSED) return;
        // Refused (session over, or too many streams): which one, the session probe tells.
        fetch('/dashboard/sessao', { credentials: 'same-origin' }).then(function (res) {
          if (res.status === 401) location.assign(LOGIN);
          else setTimeout(listen, 5000);
        }, function () { setTimeout(listen, 5000); });
      });
    }
    if (window.EventSource) listen();
  }

  function fromHtml(html) {
    var template = document.createElement('template');
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  // ---- Pagamentos: rows appear and change as the stream tells ----
  if (page === 'payments') {
    var rows = document.getElementById('rows');
    var total = document.getElementById('total');
    var empty = document.getElementById('empty');
    var filter = body.getAttribute('data-filter');
    var firstPage = body.getAttribute('data-first-page') === 'true';
    var PAGE_SIZE = 20;

    var setTotal = function (n) {
      total.setAttribute('data-total', String(n));
      total.textContent = n === 1 ? TEXTS.total.one : TEXTS.total.many.replace('{n}', n.toLocaleString('pt-BR'));
    };
    var addToTotal = function (delta) { setTotal(Number(total.getAttribute('data-total')) + delta); };
    var matches = function (status) { return !filter || filter === status; };

    // Rows are newest first: a row goes before the first older one.
    var insertRow = function (row) {
      var at = row.querySelector('time').getAttribute('datetime');
      var children = rows.children;
      for (var i = 0; i < children.length; i++) {
        var time = children[i].querySelector('time');
        if (time && time.getAttribute('datetime') < at) { rows.insertBefore(row, children[i]); break; }
      }
      if (!row.parentNode) {
        if (children.length >= PAGE_SIZE) return;
        rows.appendChild(row);
      }
      while (rows.children.length > PAGE_SIZE) rows.removeChild(rows.lastElementChild);
      row.classList.add('fresh');
      setTimeout(function () { row.classList.remove('fresh'); }, 4000);
      empty.hidden = true;
    };

    follow(function (update) {
      var existing = document.getElementById('p-' + update.id);
      if (update.event === 'payment.created') {
        if (existing || !matches(update.status)) return;
        addToTotal(1);
        if (firstPage) insertRow(fromHtml(update.row));
        return;
      }
      if (existing) {
        existing.setAttribute('data-status', update.status);
        existing.querySelector('.status-cell').innerHTML = update.badge;
        if (!matches(update.status)) {
          existing.parentNode.removeChild(existing);
          addToTotal(-1);
          empty.hidden = rows.children.length > 0;
        }
      } else if (filter && filter === update.status) {
        addToTotal(1);
        if (firstPage) insertRow(fromHtml(update.row));
      }
    }, function (reconnected) {
      if (!reconnected) return;
      // Events may have been missed while disconnected: take the page as it is now.
      fetch(location.href, { credentials: 'same-origin' }).then(function (res) { return res.text(); }).then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html');
        var freshRows = fresh.getElementById('rows');
        var freshTotal = fresh.getElementById('total');
        if (!freshRows || !freshTotal) return;
        rows.innerHTML = freshRows.innerHTML;
        setTotal(Number(freshTotal.getAttribute('data-total')));
        empty.hidden = rows.children.length > 0;
      });
    });
  }

  // ---- Um pagamento: live status and refunds, timeline refreshes, refund, cancel, sandbox, Reenviar ----
  if (page === 'payment') {
    var id = body.getAttribute('data-payment-id');
    var base = '/dashboard/pagamentos/' + encodeURIComponent(id);
    var timelineBox = document.getElementById('timeline');
    var burst = [];
    var dueTimer = null;
    var asked = 0;

    // The actions a status allows: cancel while pending, refund once approved.
    var showActions = function () {
      var status = document.getElementById('status').getAttribute('data-status');
      document.getElementById('cancel-section').hidden = status !== 'pending';
      document.getElementById('refund-section').hidden = status !== 'approved';
    };

    var refreshTimeline = function () {
      // Answers may arrive out of order: only the last one asked for is shown.
      var mine = ++asked;
      fetch(base + '/linha-do-tempo', { credentials: 'same-origin' })
        .then(function (res) {
          if (res.status === 401) { location.assign(LOGIN); throw new Error('session ended'); }
          return res.text();
        })
        .then(function (html) {
          if (mine !== asked) return;
          var fresh = new DOMParser().parseFromString(html, 'text/html');
          var next = fresh.getElementById('timeline-body');
          var badge = fresh.getElementById('status-now');
          var parts = fresh.getElementById('parts-now');
          if (!next) return;
          timelineBox.replaceChildren(document.importNode(next, true));
          if (badge) document.getElementById('status').outerHTML = badge.innerHTML.trim();
          if (parts) {
            Array.prototype.forEach.call(parts.content.children, function (part) {
              var old = part.id && document.getElementById(part.id);
              if (old) old.replaceWith(document.importNode(part, true));
            });
          }
          showActions();
          // A retry that is due soon is shown when it has been made.
          if (dueTimer) clearTimeout(dueTimer);
          var due = Date.parse(next.getAttribute('data-next') || '');
          if (due && due - Date.now() < 5 * 60 * 1000) {
            dueTimer = setTimeout(refreshTimeline, Math.max(500, due - Date.now() + 1000));
          }
        })
        .catch(function () { return undefined; });
    };
    // Deliveries follow an event or an action within moments: look a few times, then stop.
    var refreshSoon = function () {
      burst.forEach(clearTimeout);
      burst = [300, 1200, 2500, 5000].map(function (ms) { return setTimeout(refreshTimeline, ms); });
    };

    follow(function (update) {
      if (update.id !== id) return;
      document.getElementById('status').outerHTML = update.badge;
      showActions();
      refreshSoon();
    }, function (reconnected) { if (reconnected) refreshTimeline(); }, function (update) {
      if (update.id !== id) return;
      refreshTimeline();
      refreshSoon();
    });
    refreshTimeline();

    /** Shows an action's answer in its line: the message, in red when refused. */
    var tell = function (line, result) {
      line.setAttribute('data-ok', String(result.status === 200));
      line.textContent = result.body.message;
    };
    var networkFailed = function (line) {
      line.setAttribute('data-ok', 'false');
      line.textContent = TEXTS.networkError;
    };

    // Reembolsar: one refund per refund id, a new id after each one made.
    var refundForm = document.getElementById('refund-form');
    var refundAnswer = document.getElementById('refund-answer');
    var refundSubmit = document.getElementById('refund-submit');
    var sending = false;
    refundForm.addEventListener('submit', function (event) {
      event.preventDefault();
      if (sending) return;
      sending = true;
      refundSubmit.disabled = true;
      refundAnswer.removeAttribute('data-ok');
      refundAnswer.textContent = TEXTS.sending;
      var refundId = refundForm.elements.refundId;
      post(base + '/reembolsos', {
        refundId: refundId.value,
        amount: refundForm.elements.amount.value,
        reason: refundForm.elements.reason.value
      }).then(function (result) {
        tell(refundAnswer, result);
        if (result.status !== 200) return;
        refundId.value = result.body.nextRefundId;
        refundForm.elements.amount.value = '';
        refundForm.elements.reason.value = '';
        // Shown at once as it is (pending); its settlement arrives as a refund event.
        var rows = document.getElementById('refund-rows');
        if (!document.getElementById('refund-' + result.body.refund.id)) {
          rows.insertBefore(fromHtml(result.body.row), rows.firstElementChild);
          rows.parentNode.parentNode.hidden = false;
          document.getElementById('refunds-empty').hidden = true;
        }
        refreshTimeline();
      }, function () { networkFailed(refundAnswer); })
        .then(function () { sending = false; refundSubmit.disabled = false; });
    });

    // Cancelar: asked in a dialog first; the status changes with the payment's event.
    var cancelDialog = document.getElementById('cancel-dialog');
    var cancelConfirm = document.getElementById('cancel-confirm');
    var paymentAnswer = document.getElementById('payment-answer');
    document.getElementById('cancel-open').addEventListener('click', function () { cancelDialog.showModal(); });
    document.getElementById('cancel-keep').addEventListener('click', function () { cancelDialog.close(); });
    cancelConfirm.addEventListener('click', function () {
      cancelConfirm.disabled = true;
      post(base + '/cancelar').then(function (result) {
        cancelDialog.close();
        tell(paymentAnswer, result);
        refreshSoon();
      }, function () { cancelDialog.close(); networkFailed(paymentAnswer); })
        .then(function () { cancelConfirm.disabled = false; });
    });

    var answer = document.getElementById('sandbox-answer');
    var amountInput = document.getElementById('other-amount');
    Array.prototype.forEach.call(document.querySelectorAll('[data-sandbox]'), function (button) {
      button.addEventListener('click', function () {
        var action = button.getAttribute('data-sandbox');
        button.disabled = true;
        answer.removeAttribute('data-ok');
        answer.textContent = '…';
        post(base + '/sandbox/' + action, action === 'pay-amount' ? { amount: amountInput.value } : {})
          .then(function (result) {
            answer.setAttribute('data-ok', String(result.status === 200));
            answer.textContent = 'HTTP ' + result.status + '\\n' + JSON.stringify(result.body, null, 2);
            refreshSoon();
          }, function () { networkFailed(answer); })
          .then(function () { button.disabled = false; });
      });
    });

    var redeliverAnswer = document.getElementById('redeliver-answer');
    timelineBox.addEventListener('click', function (event) {
      var button = event.target.closest('[data-redeliver]');
      if (!button) return;
      button.disabled = true;
      post('/dashboard/eventos/' + encodeURIComponent(button.getAttribute('data-redeliver')) + '/reenviar')
        .then(function (result) {
          tell(redeliverAnswer, result);
          refreshSoon();
        }, function () { button.disabled = false; });
    });
  }
})();
`;
