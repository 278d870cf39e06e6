import type { Refund } from '@pix/contracts';
import { byId, follow, LOGIN, post, serverMarkup, TEXTS, type Answer } from './connection';

/** The refund form's answer (routes.ts): the refund, its row as the server renders it, the next id. */
interface RefundAnswer {
  refund: Refund;
  row: string;
  nextRefundId: string;
}

/** Shows an action's answer in its line: the message, in red when refused. */
function tell(line: HTMLElement, result: Answer<unknown>): void {
  line.dataset.ok = String(result.status === 200);
  line.textContent = result.body.message;
}

function networkFailed(line: HTMLElement): void {
  line.dataset.ok = 'false';
  line.textContent = TEXTS.networkError;
}

/** A refund's row from the server's markup: a <tr> is parsed inside a table, as it stands in one. */
function refundRowFrom(markup: string): Element | null {
  const row = serverMarkup(`<table><tbody>${markup}</tbody></table>`).querySelector('tr');
  return row && document.importNode(row, true);
}

/** Um pagamento: live status and refunds, timeline refreshes, refund, cancel, sandbox, Reenviar. */
export function paymentDetail(): void {
  const id = document.body.dataset.paymentId ?? '';
  const base = `/dashboard/pagamentos/${encodeURIComponent(id)}`;
  const timelineBox = byId('timeline');
  let burst: number[] = [];
  let dueTimer: number | undefined;
  let asked = 0;

  // The actions a status allows: cancel while pending, refund once approved.
  const showActions = () => {
    const status = byId('status').dataset.status;
    byId('cancel-section').hidden = status !== 'pending';
    byId('refund-section').hidden = status !== 'approved';
  };

  const refreshTimeline = async () => {
    // Answers may arrive out of order: only the last one asked for is shown.
    const mine = ++asked;
    const res = await fetch(`${base}/linha-do-tempo`, { credentials: 'same-origin' });
    if (res.status === 401) return location.assign(LOGIN);
    const fresh = serverMarkup(await res.text());
    if (mine !== asked) return;
    const next = fresh.getElementById('timeline-body');
    if (!next) return;
    timelineBox.replaceChildren(document.importNode(next, true));
    const badge = fresh.querySelector<HTMLTemplateElement>('#status-now')?.content.firstElementChild;
    if (badge) byId('status').replaceWith(document.importNode(badge, true));
    const parts = fresh.querySelector<HTMLTemplateElement>('#parts-now')?.content.children ?? [];
    for (const part of Array.from(parts)) {
      const old = part.id ? document.getElementById(part.id) : null;
      if (old) old.replaceWith(document.importNode(part, true));
    }
    showActions();
    // A retry that is due soon is shown when it has been made.
    clearTimeout(dueTimer);
    const due = Date.parse(next.dataset.next ?? '');
    if (due && due - Date.now() < 5 * 60 * 1000) {
      dueTimer = window.setTimeout(refresh, Math.max(500, due - Date.now() + 1000));
    }
  };
  const refresh = () => void refreshTimeline().catch(() => undefined);
  // Deliveries follow an event or an action within moments: look a few times, then stop.
  const refreshSoon = () => {
    burst.forEach(clearTimeout);
    burst = [300, 1200, 2500, 5000].map((ms) => window.setTimeout(refresh, ms));
  };

  follow({
    payment(update) {
      if (update.id !== id) return;
      const status = byId('status');
      status.className = `badge badge-${update.status}`;
      status.dataset.status = update.status;
      status.textContent = update.statusLabel;
      showActions();
      refreshSoon();
    },
    refund(update) {
      if (update.id !== id) return;
      refresh();
      refreshSoon();
    },
    ready(reconnected) {
      if (reconnected) refresh();
    },
  });
  refresh();

  // Reembolsar: one refund per refund id, a new id after each one made.
  const refundForm = byId<HTMLFormElement>('refund-form');
  const refundAnswer = byId('refund-answer');
  const refundSubmit = byId<HTMLButtonElement>('refund-submit');
  const refundId = byId<HTMLInputElement>('refund-id');
  const refundAmount = byId<HTMLInputElement>('refund-amount');
  const refundReason = byId<HTMLTextAreaElement>('refund-reason');
  let sending = false;
  refundForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (sending) return;
    sending = true;
    refundSubmit.disabled = true;
    delete refundAnswer.dataset.ok;
    refundAnswer.textContent = TEXTS.sending;
    post<RefundAnswer>(`${base}/reembolsos`, {
      refundId: refundId.value,
      amount: refundAmount.value,
      reason: refundReason.value,
    })
      .then(
        (result) => {
          tell(refundAnswer, result);
          if (result.status !== 200) return;
          refundId.value = result.body.nextRefundId;
          refundAmount.value = '';
          refundReason.value = '';
          // Shown at once as it is (pending); its settlement arrives as a refund event.
          const row = document.getElementById(`refund-${result.body.refund.id}`)
            ? null
            : refundRowFrom(result.body.row);
          if (row) {
            const rows = byId('refund-rows');
            rows.insertBefore(row, rows.firstElementChild);
            const table = rows.closest<HTMLElement>('.scroll');
            if (table) table.hidden = false;
            byId('refunds-empty').hidden = true;
          }
          refresh();
        },
        () => networkFailed(refundAnswer),
      )
      .finally(() => {
        sending = false;
        refundSubmit.disabled = false;
      });
  });

  // Cancelar: asked in a dialog first; the status changes with the payment's event.
  const cancelDialog = byId<HTMLDialogElement>('cancel-dialog');
  const cancelConfirm = byId<HTMLButtonElement>('cancel-confirm');
  const paymentAnswer = byId('payment-answer');
  byId('cancel-open').addEventListener('click', () => cancelDialog.showModal());
  byId('cancel-keep').addEventListener('click', () => cancelDialog.close());
  cancelConfirm.addEventListener('click', () => {
    cancelConfirm.disabled = true;
    post(`${base}/cancelar`)
      .then(
        (result) => {
          cancelDialog.close();
          tell(paymentAnswer, result);
          refreshSoon();
        },
        () => {
          cancelDialog.close();
          networkFailed(paymentAnswer);
        },
      )
      .finally(() => {
        cancelConfirm.disabled = false;
      });
  });

  const sandboxAnswer = document.getElementById('sandbox-answer');
  const otherAmount = document.getElementById('other-amount') as HTMLInputElement | null;
  for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('[data-sandbox]'))) {
    button.addEventListener('click', () => {
      if (!sandboxAnswer) return;
      const action = button.dataset.sandbox ?? '';
      button.disabled = true;
      delete sandboxAnswer.dataset.ok;
      sandboxAnswer.textContent = '…';
      post(`${base}/sandbox/${action}`, action === 'pay-amount' ? { amount: otherAmount?.value ?? '' } : {})
        .then(
          (result) => {
            sandboxAnswer.dataset.ok = String(result.status === 200);
            sandboxAnswer.textContent = `HTTP ${result.status}\n${JSON.stringify(result.body, null, 2)}`;
            refreshSoon();
          },
          () => networkFailed(sandboxAnswer),
        )
        .finally(() => {
          button.disabled = false;
        });
    });
  }

  const redeliverAnswer = byId('redeliver-answer');
  timelineBox.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('[data-redeliver]');
    if (!button) return;
    button.disabled = true;
    post(`/dashboard/eventos/${encodeURIComponent(button.dataset.redeliver ?? '')}/reenviar`).then(
      (result) => {
        tell(redeliverAnswer, result);
        refreshSoon();
      },
      () => {
        button.disabled = false;
      },
    );
  });
}
