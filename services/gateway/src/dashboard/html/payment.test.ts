import { randomUUID } from 'node:crypto';
import { DashboardTexts, type Payment, type PublicEventDetail, type Refund } from '@pix/contracts';
import { livePaymentParts, paymentPage, refundableCents, refundRow, timeline } from './payment';

const PAYMENT: Payment = {
  id: randomUUID(),
  status: 'approved',
  amount: 89.9,
  storeId: 'store-1',
  livemode: false,
  createdAt: '2026-11-24T19:45:03.000Z',
  webhookUrl: null,
  observation: null,
  email: null,
  qrCodeUrl: null,
  qrCopyPaste: null,
  isPublic: false,
  refundedAmount: 0,
  expiresAt: '2026-11-25T19:45:03.000Z',
};

function refund(fields: Partial<Refund>): Refund {
  return {
    id: randomUUID(),
    paymentId: PAYMENT.id,
    livemode: false,
    endToEndId: 'E00000000202611241945abcdefghijk',
    amount: 10,
    status: 'pending',
    reason: null,
    origin: 'merchant',
    nature: null,
    createdAt: '2026-11-24T20:00:00.000Z',
    settledAt: null,
    failureReason: null,
    ...fields,
  };
}

describe('the payment page of the dashboard', () => {
  it('leaves to refund the paid amount less the merchant refunds that have not failed', () => {
    expect(refundableCents(PAYMENT, [])).toBe(8990);
    const refunds = [
      refund({ amount: 10, status: 'succeeded' }),
      refund({ amount: 0.1, status: 'pending' }),
      refund({ amount: 50, status: 'failed' }),
      // A late Pix returned by the platform is another Pix: it does not count against this one.
      refund({ amount: 89.9, origin: 'platform', endToEndId: 'E-late' }),
    ];
    expect(refundableCents(PAYMENT, refunds)).toBe(7980);
    expect(refundableCents(PAYMENT, [refund({ amount: 89.9 })])).toBe(0);
    expect(refundableCents({ ...PAYMENT, status: 'pending' }, [])).toBe(0);
    expect(livePaymentParts(PAYMENT, refunds).text).toContain(
      '<strong id="refund-available" data-cents="7980">R$ 79,80</strong>',
    );
  });

  it("counts the PSP's own returns (MED) against what is left, and names their nature as the reason", () => {
    const med = refund({ amount: 30, status: 'succeeded', origin: 'psp', nature: 'med_fraud' });
    expect(refundableCents(PAYMENT, [med])).toBe(5990);
    const row = refundRow(med).text;
    expect(row).toContain('data-origin="psp"');
    expect(row).toContain(
      `<td data-label="Origem" class="refund-origin">${DashboardTexts.payment.refunds.origins.psp}</td>`,
    );
    expect(row).toContain(DashboardTexts.payment.refunds.natures.med_fraud);
  });

  it("tells in the timeline that the PSP made a refund on its own, and a merchant's as asked", () => {
    const created = (fields: Partial<Refund>): PublicEventDetail =>
      ({
        id: randomUUID(),
        type: 'refund.created',
        status: 'delivered',
        nextAttemptAt: null,
        createdAt: '2026-11-24T20:00:00.000Z',
        attempts: [],
        body: { event: 'refund.created', ...refund({ amount: 30, ...fields }), storeId: 's' },
      }) as unknown as PublicEventDetail;
    const items = timeline(PAYMENT, [created({ origin: 'psp', nature: 'med_fraud' }), created({})]).text;
    expect(items).toContain(DashboardTexts.payment.refundEvents.pspCreated('R$ 30,00'));
    expect(items).toContain(DashboardTexts.payment.refundEvents['refund.created']('R$ 30,00'));
  });

  it("shows a refund's reason and failure as text, isolated from the text around it", () => {
    const hostile = '<script>alert(1)</script>"\'\u202Eevil';
    const row = refundRow(refund({ reason: hostile, status: 'failed', failureReason: '<b>no</b>' })).text;
    expect(row).not.toContain('<script>');
    expect(row).not.toContain('<b>');
    expect(row).toContain('<bdi>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;\u202Eevil</bdi>');
    expect(row).toContain(DashboardTexts.payment.refunds.statuses.failed);
  });

  it('offers Cancelar to a pending payment and Reembolsar to an approved one', () => {
    const view = {
      script: '/dashboard/assets/dashboard.0123ABCD.js',
      store: { name: 'Loja', csrf: 'x', active: 'payments' as const, livemode: true },
      pageUrl: 'http://127.0.0.1/pay/1',
      events: [],
      refunds: [],
      refundId: randomUUID(),
      sandbox: false,
    };
    const pending = paymentPage({ ...view, payment: { ...PAYMENT, status: 'pending' } });
    // A live session's page says so, with no test banner.
    expect(pending).toContain('<p class="mode mode-live" id="mode" role="note" data-livemode="true">');
    expect(pending).not.toContain(DashboardTexts.mode.test);
    expect(pending).toMatch(/<section class="card" id="cancel-section" aria-labelledby="cancel-title">/);
    expect(pending).toMatch(/id="refund-section"[^>]* hidden>/);
    const approved = paymentPage({ ...view, payment: PAYMENT });
    expect(approved).toMatch(/id="cancel-section"[^>]* hidden>/);
    expect(approved).toMatch(/<section class="card" id="refund-section" aria-labelledby="refund-title">/);
    expect(approved).toContain(`value="${view.refundId}"`);
  });
});
