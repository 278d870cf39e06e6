import type { PagePhase, PaymentPageUpdate } from '@pix/contracts';
import type { PaymentPageScriptTexts } from '../script-texts';

/**
 * The hosted payment page's script (bundled by build-browser.mjs): the countdown, the copy button
 * and the live status. The status comes from Server-Sent Events on the same origin; each
 * (re)connection starts with the payment's current state, so a page whose gateway restarted
 * catches up by itself (EventSource reconnects, and the script opens a new one if the browser
 * gave up).
 */
function start(main: HTMLElement): void {
  const texts = JSON.parse(main.dataset.texts ?? '{}') as PaymentPageScriptTexts;
  const id = main.dataset.paymentId ?? '';
  const expiresAt = Date.parse(main.dataset.expiresAt ?? '');
  let sequence = Number(main.dataset.sequence);
  let phase = main.dataset.phase as PagePhase;
  const pay = document.getElementById('pay');
  const phaseText = document.getElementById('phase');
  const detail = document.getElementById('detail');
  const clock = document.getElementById('time-left');

  const show = (next: PagePhase) => {
    if (next === phase) return;
    phase = next;
    main.dataset.phase = next;
    if (phaseText) {
      phaseText.className = `phase phase-${next}`;
      phaseText.textContent = texts.phases[next];
    }
    if (detail) detail.textContent = texts.details[next];
    if (pay) pay.hidden = next !== 'pending';
  };

  const two = (n: number) => String(n).padStart(2, '0');
  const tick = () => {
    if (phase !== 'pending') return;
    const left = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    if (clock)
      clock.textContent = `${Math.floor(left / 3600)}:${two(Math.floor((left % 3600) / 60))}:${two(left % 60)}`;
    // The server's not_approved follows within moments; the customer should not pay meanwhile.
    if (left === 0) show('expired');
  };
  tick();
  setInterval(tick, 1000);

  const copy = document.getElementById('copy');
  const code = document.getElementById('code') as HTMLTextAreaElement | null;
  const result = document.getElementById('copy-result');
  if (copy && code && result) {
    const done = (ok: boolean) => {
      result.textContent = ok ? texts.copied : texts.copyFailed;
    };
    const fallback = () => {
      code.focus();
      code.select();
      let ok = false;
      try {
        ok = document.execCommand('copy');
      } catch {
        ok = false;
      }
      done(ok);
    };
    copy.addEventListener('click', () => {
      if (navigator.clipboard?.writeText) {
        navigator.clipboard.writeText(code.value).then(() => done(true), fallback);
      } else {
        fallback();
      }
    });
  }

  const listen = () => {
    const source = new EventSource(`/pay/${encodeURIComponent(id)}/events`);
    source.addEventListener('status', (event) => {
      const update = JSON.parse(event.data) as PaymentPageUpdate;
      if (update.sequence < sequence) return;
      if (update.phase === 'pending' && Date.now() >= expiresAt) return;
      sequence = update.sequence;
      show(update.phase);
    });
    source.addEventListener('error', () => {
      // A closed source (an answer that was not a stream) is not retried by the browser: retry here.
      if (source.readyState === EventSource.CLOSED) setTimeout(listen, 2000);
    });
  };
  if ('EventSource' in window) listen();
}

const main = document.getElementById('payment');
if (main) start(main);
