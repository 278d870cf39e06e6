import { randomUUID } from 'node:crypto';
import { html } from '../pages/html';
import { errorPage, paymentPage } from './html';

const HOSTILE = `<script>alert(1)</script>"'javascript:alert(1)\u202Eevil`;
const ESCAPED = html`${HOSTILE}`.text;
const SCRIPT = '/pay/assets/payment-page.0123ABCD.js';

describe('the hosted payment page given hostile text', () => {
  it("shows the store's name and the Pix code as text, the override inside its own field", () => {
    const page = paymentPage(
      {
        id: randomUUID(),
        storeName: HOSTILE,
        amount: 12.5,
        phase: 'pending',
        qrCopyPaste: HOSTILE,
        expiresAt: '2099-01-01T00:00:00.000Z',
        sequence: 1,
      },
      SCRIPT,
    );
    expect(page).not.toContain('<script>');
    expect(page).not.toMatch(/(href|src|action)="\s*javascript:/i);
    expect(page).toContain(`<dd id="store">${ESCAPED}</dd>`);
    expect(page).toContain(`<title>Pagamento Pix · ${ESCAPED}</title>`);
    expect(page).toContain(`spellcheck="false">${ESCAPED}</textarea>`);
  });

  it('shows an error page as text', () => {
    const page = errorPage(HOSTILE, HOSTILE, SCRIPT);
    expect(page).not.toContain('<script>');
    expect(page).toContain(`<h1>${ESCAPED}</h1>`);
  });
});
