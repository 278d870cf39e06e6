import { randomUUID } from 'node:crypto';
import type { Payment, PublicEventDetail, Refund } from '@pix/contracts';
import { html } from '../../pages/html';
import { messagePage } from './layout';
import { loginPage } from './login';
import { paymentPage } from './payment';
import { paymentsPage } from './payments';
import { webhooksPage } from './webhooks';

/** Markup, both quotes, a script URL and a right-to-left override, in every field a merchant sets. */
const HOSTILE = `<script>alert(1)</script>"'javascript:alert(1)\u202Eevil`;
const ESCAPED = html`${HOSTILE}`.text;
const URL_HOSTILE = `javascript:alert(1)//"><script>alert(1)</script>\u202E`;
const URL_ESCAPED = html`${URL_HOSTILE}`.text;
const store = { name: HOSTILE, csrf: 'csrf', active: 'payments' as const, livemode: false };
const script = '/dashboard/assets/dashboard.0123ABCD.js';

/** Nothing of the hostile text is live: no element, attribute or script URL comes out of it. */
function expectInert(page: string): void {
  expect(page).not.toContain('<script>');
  expect(page).not.toMatch(/(href|src|action)="\s*javascript:/i);
  expect(page).not.toContain(`"'`);
  // The override stays inside the text it came in, never in markup.
  for (const line of page.split('\n').filter((l) => l.includes('\u202E'))) {
    expect(line).toMatch(/&lt;script&gt;|javascript:alert/);
  }
}

const payment: Payment = {
  id: randomUUID(),
  status: 'approved',
  amount: 89.9,
  storeId: 'store-1',
  livemode: false,
  createdAt: '2026-11-24T19:45:03.000Z',
  webhookUrl: URL_HOSTILE,
  observation: HOSTILE,
  email: HOSTILE,
  qrCodeUrl: null,
  qrCopyPaste: HOSTILE,
  isPublic: false,
  refundedAmount: 0,
  expiresAt: '2026-11-25T19:45:03.000Z',
};

const refund: Refund = {
  id: randomUUID(),
  paymentId: payment.id,
  livemode: false,
  endToEndId: 'E00000000202611241945abcdefghijk',
  amount: 10,
  status: 'failed',
  reason: HOSTILE,
  origin: 'merchant',
  nature: null,
  createdAt: '2026-11-24T20:00:00.000Z',
  settledAt: null,
  failureReason: HOSTILE,
};

const event = {
  id: randomUUID(),
  type: 'payment.created',
  status: 'dead',
  nextAttemptAt: null,
  createdAt: '2026-11-24T19:45:03.000Z',
  // What the merchant's endpoint answered (or its address in a refusal) is the merchant's text too.
  attempts: [
    {
      attempt: 1,
      run: 1,
      at: '2026-11-24T19:45:04.000Z',
      outcome: 'failure',
      statusCode: 500,
      error: HOSTILE,
      latencyMs: 12,
    },
    {
      attempt: 2,
      run: 1,
      at: '2026-11-24T19:45:09.000Z',
      outcome: 'refused',
      statusCode: null,
      error: HOSTILE,
      latencyMs: null,
    },
  ],
  body: { event: 'payment.created', id: payment.id },
} as unknown as PublicEventDetail;

describe('dashboard pages given hostile merchant text', () => {
  it('the payments list shows the store name and customer e-mail as text', () => {
    const page = paymentsPage({
      script,
      store,
      rows: [
        {
          id: payment.id,
          status: 'pending',
          amount: 5,
          createdAt: payment.createdAt,
          email: HOSTILE,
          webhook: 'failing',
        },
      ],
      status: null,
      page: 1,
      limit: 20,
      total: 1,
    });
    expectInert(page);
    expect(page).toContain(`<span class="store" id="store-name">${ESCAPED}</span>`);
    expect(page).toContain(`<td data-label="E-mail" class="email">${ESCAPED}</td>`);
    expect(page).toContain(`<title>Pagamentos · Painel Pix</title>`);
    // One script, the built one, by the name given; its texts are data, escaped like the rest.
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toContain(`<script src="${script}" defer></script>`);
    expect(page).toMatch(/ data-texts="\{&quot;live&quot;:/);
  });

  it("a payment's page shows its description, e-mail, webhookUrl, refunds and answers as text", () => {
    const page = paymentPage({
      script,
      store,
      payment,
      pageUrl: 'http://127.0.0.1/pay/1',
      events: [event],
      refunds: [refund],
      refundId: randomUUID(),
      sandbox: true,
    });
    expectInert(page);
    expect(page).toContain(`<dd>${ESCAPED}</dd>`);
    expect(page).toContain(`<dd><code>${URL_ESCAPED}</code></dd>`);
    expect(page).not.toContain(`href="${URL_ESCAPED}"`);
    expect(page).toContain(`<bdi>${ESCAPED}</bdi>`);
    expect(page).toContain(`<span class="muted">${ESCAPED}</span>`);
    expect(page).toContain(`<span class="http http-refused">${ESCAPED}</span>`);
    expect(page).toContain(`spellcheck="false">${ESCAPED}</textarea>`);
  });

  it('the webhooks page shows endpoint URLs and secrets as text', () => {
    const page = webhooksPage({
      script,
      store: { ...store, active: 'webhooks' },
      stats: {
        since: '2026-11-25T10:00:00.000Z',
        endpoints: [{ url: URL_HOSTILE, deliveries: 2, delivered: 1, pending: 0, failing: 1, dead: 0, attempts: 3 }],
        truncated: false,
        read: 2,
      },
      secrets: [HOSTILE],
    });
    expectInert(page);
    expect(page).toContain(
      `<tr data-url="${URL_ESCAPED}"><th scope="row" class="url"><code>${URL_ESCAPED}</code></th>`,
    );
    expect(page).toContain(`readonly value="${ESCAPED}"`);
  });

  it('the sign-in page and a message page show what they are given as text', () => {
    const login = loginPage({ script, csrf: HOSTILE, notice: HOSTILE, error: HOSTILE });
    expectInert(login);
    expect(login).toContain(`<input type="hidden" name="csrf" value="${ESCAPED}">`);
    expect(login).toContain(`<p class="notice" role="status">${ESCAPED}</p>`);
    const message = messagePage(HOSTILE, HOSTILE, script, store);
    expectInert(message);
    expect(message).toContain(`<title>${ESCAPED} · Painel Pix</title>`);
  });
});
