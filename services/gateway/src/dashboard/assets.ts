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
.mode { margin: 0; padding: 0.5rem 1.5rem; font-size: 0.875rem; }
.mode-test { background: #fff4d6; color: #5c4300; border-bottom: 2px solid #e0a800; }
.mode-live { background: #e6f4ea; color: #1e4620; }
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
.disputes { list-style: none; padding: 0; display: grid; gap: 1rem; }
.dispute dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0 0 0.75rem; }
.dispute dt { font-weight: 600; }
.dispute dd { margin: 0; }
.deadline.bad, .at-risk { color: #8a1515; font-weight: 600; }
.defense-form { max-width: 40rem; display: grid; gap: 0.5rem; }
.defense-form textarea { width: 100%; resize: vertical; }
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
