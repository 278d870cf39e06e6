import { DashboardTexts, type Dispute } from '@pix/contracts';
import { disputesPage } from './disputes';

const D = DashboardTexts.disputes;
const NOW = Date.parse('2026-11-29T00:00:00.000Z');
const store = { name: 'Loja', csrf: 'csrf-token', active: 'disputes' as const, livemode: false };

function dispute(fields: Partial<Dispute> = {}): Dispute {
  return {
    status: 'open',
    reason: 'Não reconheço <script>alert(1)</script>',
    kind: 'golpe',
    amountAtRisk: 30,
    openedAt: '2026-11-28T00:00:00.000Z',
    deadlineAt: '2026-12-01T00:00:00.000Z',
    defense: null,
    decision: null,
    closedAt: null,
    ...fields,
  };
}

const PAYMENT = '6e3c9e7e-a2bb-44ea-bf32-7cf46d288b1c';

describe('the Contestações page of the dashboard', () => {
  it('lists each open dispute with its deadline and a defence form carrying the CSRF token', () => {
    const page = disputesPage(
      {
        script: '/dashboard/assets/dashboard.js',
        store,
        disputes: { items: [{ paymentId: PAYMENT, amount: 50, dispute: dispute() }] },
      },
      NOW,
    );
    expect(page).toContain('aria-current="page">Contestações</a>');
    expect(page).toContain(`data-payment-id="${PAYMENT}" data-deadline="2026-12-01T00:00:00.000Z"`);
    expect(page).toContain(
      `<form method="post" action="/dashboard/contestacoes/${PAYMENT}/defesa" class="defense-form">`,
    );
    expect(page).toContain('<input type="hidden" name="csrf" value="csrf-token">');
    expect(page).toContain('maxlength="1000"');
    // The payer's claim is text, never markup.
    expect(page).toContain('Não reconheço &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert(1)');
  });

  it('shows a defence sent instead of the form, and no form once the deadline passed', () => {
    const sent = dispute({ defense: { text: 'Entregue.', sentAt: '2026-11-28T12:00:00.000Z' } });
    const late = dispute({ deadlineAt: '2026-11-28T23:00:00.000Z' });
    const page = disputesPage(
      {
        script: '/dashboard/assets/dashboard.js',
        store,
        disputes: {
          items: [
            { paymentId: PAYMENT, amount: 50, dispute: sent },
            { paymentId: PAYMENT.replace('6e3c', '7e3c'), amount: 20, dispute: late },
          ],
        },
      },
      NOW,
    );
    expect(page).toContain('<blockquote>Entregue.</blockquote>');
    expect(page).toContain(D.deadlinePassed);
    expect(page).not.toContain('class="defense-form"');
  });

  it('says when there is none, and what the last defence answered', () => {
    const page = disputesPage(
      { script: '/dashboard/assets/dashboard.js', store, disputes: { items: [] }, notice: { ok: true, text: D.sent } },
      NOW,
    );
    expect(page).toContain(D.empty);
    expect(page).toContain(`<p class="notice" role="status" id="notice">${D.sent}</p>`);
  });
});
