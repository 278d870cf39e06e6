/**
 * The page's styles. Colours meet WCAG AA (4.5:1 for text, 3:1 for the focus ring and the
 * button's edge); the layout is one column that fits 320 px; focus is always visible.
 */
export const PAGE_STYLE = `*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; font-size: 100%; line-height: 1.5; color: #1b1b1f; background: #f4f5f7; }
body { margin: 0; padding: 1rem; }
.page { max-width: 28rem; margin: 0 auto; padding: 1.25rem; background: #ffffff; border-radius: 0.75rem; box-shadow: 0 1px 3px rgba(0, 0, 0, 0.15); }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1rem; margin: 0 0 0.25rem; color: #44464f; font-weight: 600; }
.summary { margin: 0 0 1rem; }
.summary div { display: flex; flex-wrap: wrap; align-items: baseline; justify-content: space-between; gap: 0.25rem 1rem; padding: 0.5rem 0; border-bottom: 1px solid #d5d7de; }
.summary dt { color: #44464f; }
.summary dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.amount { font-size: 1.25rem; white-space: nowrap; }
.status { margin: 0 0 1rem; }
.phase { margin: 0; padding: 0.5rem 0.75rem; border-radius: 0.5rem; font-weight: 700; font-size: 1.125rem; }
.phase-pending { background: #e8effc; color: #123a85; }
.phase-approved { background: #e3f4e8; color: #0b5c28; }
.phase-review { background: #fff3d6; color: #5c4200; }
.phase-expired, .phase-cancelled, .phase-not_approved { background: #fbe7e7; color: #8a1515; }
.detail { margin: 0.5rem 0 0; }
.time-left { margin: 0 0 0.75rem; }
.time-left time { font-weight: 700; font-variant-numeric: tabular-nums; }
.qr { display: block; width: 100%; max-width: 280px; height: auto; margin: 0 auto 1rem; image-rendering: pixelated; }
label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
.code { display: block; width: 100%; padding: 0.5rem; font: 0.875rem/1.4 ui-monospace, "DejaVu Sans Mono", monospace; color: #1b1b1f; background: #ffffff; border: 1px solid #6b6e78; border-radius: 0.375rem; resize: none; word-break: break-all; }
.copy { display: block; width: 100%; min-height: 2.75rem; margin-top: 0.75rem; padding: 0.5rem 1rem; font: inherit; font-weight: 700; color: #ffffff; background: #0b5394; border: 2px solid #0b5394; border-radius: 0.5rem; cursor: pointer; }
.copy:hover { background: #083d6e; }
:focus-visible { outline: 3px solid #1a4fd6; outline-offset: 2px; }
.copy:focus-visible { outline-color: #1b1b1f; }
.copy-result { min-height: 1.5em; margin: 0.5rem 0 0; color: #0b5c28; font-weight: 600; }
.live { margin: 1rem 0 0; font-size: 0.875rem; color: #44464f; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
`;
