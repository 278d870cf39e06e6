import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '@pix/devstack';
import { DashboardTexts, ErrorMessages, PlatformRefundReasons, StatusLabels } from '@pix/contracts';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api } from '../support/api';
import { contrastRatios, launchChromium } from '../support/browser';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/** Debian's chromium (scripts/install-system-packages.sh); playwright-core downloads no browser. */
/** Screenshots of every run; `UPDATE_DOCS_SCREENSHOTS=1` writes the copies the README and docs/api.md show (in docs/) instead. */
const ARTIFACTS = path.join(ROOT, '.run', 'artifacts', 'dashboard');
const SHOTS = process.env.UPDATE_DOCS_SCREENSHOTS ? path.join(ROOT, 'docs') : ARTIFACTS;
/** Three attempts a second apart: a failing endpoint's delivery is dead within seconds. */
const RETRY_SCHEDULE = '0s,1s,1s';
/** Live streams per store on the replica (payment pages and dashboards together); the test fills it. */
const STREAMS_PER_STORE = 3;

interface Payment {
  id: string;
  status: string;
  amount: number;
}

/**
 * The merchant's dashboard in headless Chromium against a stack of its own, as the issue lists it:
 * log in with the store's token; another store's payment is not reachable; filter by status; a
 * payment made through the API appears without a reload; paid from its page in the sandbox it is
 * approved within 2 s; its deliveries show their HTTP status; a failing endpoint's attempts show,
 * and once fixed Reenviar delivers again with the same webhook-id; a refund made from the payment's
 * page settles live with its webhooks, one per refund id however often the form is sent, and a
 * pending payment is cancelled after a confirmation; logging out is refused after.
 * The steps run in order on one browser context, as one merchant's session.
 */
describe('merchant dashboard in a real browser', () => {
  let stack: PrivateStack;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let store: StoreCredentials;
  let other: StoreCredentials;
  const receiver = new WebhookReceiver();
  let webhookUrl: string;
  const payments = {} as Record<'big' | 'paid' | 'plain' | 'others' | 'fresh', Payment>;
  const requests: string[] = [];

  const url = (p: string) => `${stack.gatewayUrl}${p}`;
  const sameDocument = () => page.evaluate('window.__sameDocument === true');
  const markDocument = () => page.evaluate('window.__sameDocument = true');

  /** The page at 320 px: nothing wider than the screen (wide tables scroll inside their box). */
  async function fitsNarrowScreen(shot: string): Promise<void> {
    await page.setViewportSize({ width: 320, height: 800 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);
    await page.screenshot({ path: path.join(ARTIFACTS, shot), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  async function createPayment(owner: StoreCredentials, body: Record<string, unknown>): Promise<Payment> {
    const res = await api<Payment>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', { token: owner.token, body });
    expect(res.status).toBe(200);
    return res.body;
  }

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    [stack, browser, webhookUrl] = await Promise.all([
      startPrivateStack({
        env: { WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE, SSE_MAX_CONNECTIONS_PER_STORE: String(STREAMS_PER_STORE) },
      }),
      launchChromium(),
      receiver.start(),
    ]);
    [store, other] = await Promise.all([createStore(stack, 'Loja da Ana'), createStore(stack, 'Outra loja')]);
    payments.big = await createPayment(store, { amount: 1234.5, email: 'maria@example.com', webhookUrl });
    payments.paid = await createPayment(store, { amount: 89.9, email: 'joao@example.com', webhookUrl });
    payments.plain = await createPayment(store, { amount: 12, observation: 'Balcão' });
    const paid = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payments.paid.id}/pay`, {
      token: store.token,
    });
    expect(paid.status).toBe(200);
    payments.others = await createPayment(other, { amount: 50, email: 'segredo@example.com' });

    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'pt-BR' });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await receiver.stop();
    await stack?.stop();
  });

  it('logs in with the store token, by keyboard, into a session cookie that holds no token', async () => {
    const res = await page.goto(url('/dashboard'));
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/dashboard/entrar');
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    // Its one script has a name that carries its content's hash: a page never runs another deploy's.
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('head script').getAttribute('src')).toMatch(
      /^\/dashboard\/assets\/dashboard\.[A-Z0-9]{8}\.js$/,
    );

    // A wrong token is refused with the message, and no session.
    await page.getByLabel(DashboardTexts.login.tokenLabel).fill('pxt_not-a-token');
    await page.getByRole('button', { name: DashboardTexts.login.submit }).click();
    await page.getByText(DashboardTexts.login.invalid).waitFor();
    expect((await context.cookies()).map((c) => c.name)).not.toContain('pix_dashboard');

    // The sign-in page opened in another tab meanwhile leaves this one's form able to sign in.
    const otherTab = await context.newPage();
    expect((await otherTab.goto(url('/dashboard/entrar')))?.status()).toBe(200);
    await otherTab.close();

    let focused = '';
    for (let i = 0; i < 10 && focused !== 'token'; i++) {
      await page.keyboard.press('Tab');
      focused = String(await page.evaluate('document.activeElement && document.activeElement.id'));
    }
    expect(focused).toBe('token');
    await page.keyboard.type(store.token);
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/dashboard/pagamentos'));

    const cookie = (await context.cookies()).find((c) => c.name === 'pix_dashboard');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie?.value).not.toContain(store.token);
    expect(cookie?.value).not.toContain(store.token.slice(4, 20));
    expect(await page.evaluate('document.cookie')).toBe('');

    expect(await page.locator('#store-name').textContent()).toBe('Loja da Ana');
    expect(await page.locator('#total').textContent()).toBe(DashboardTexts.payments.total(3));
    const big = page.locator(`#p-${payments.big.id}`);
    expect(await big.locator('td').first().textContent()).toBe('R$ 1.234,50');
    expect(await big.locator('.badge').textContent()).toBe(StatusLabels.pending);
    expect(await big.locator('.email').textContent()).toBe('maria@example.com');
    // São Paulo's time on the cell, UTC on hover.
    const time = big.locator('time');
    const iso = (await time.getAttribute('datetime')) ?? '';
    const sp = new Date(Date.parse(iso) - 3 * 3600 * 1000).toISOString();
    expect(await time.textContent()).toBe(
      `${sp.slice(8, 10)}/${sp.slice(5, 7)}/${sp.slice(0, 4)}, ${sp.slice(11, 19)}`,
    );
    expect(await time.getAttribute('title')).toBe(`${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
    // The webhook column: the paid payment's two deliveries arrived; the one without webhookUrl has none.
    await page.reload();
    expect(await page.locator(`#p-${payments.plain.id} .hook-cell`).textContent()).toBe('—');
    expect(['Entregue', 'Pendente']).toContain(await page.locator(`#p-${payments.paid.id} .hook`).textContent());

    const contrast = await contrastRatios(page, [
      '#total',
      'thead th',
      '.badge-pending',
      '.badge-approved',
      '.hint',
      '.email',
      '.top a',
      '#live',
    ]);
    for (const { selector, ratio } of contrast) expect({ selector, aa: ratio >= 4.5 }).toEqual({ selector, aa: true });

    await fitsNarrowScreen('payments-320.png');
  }, 60_000);

  it("does not reach another store's payment by its URL", async () => {
    for (const id of [payments.others.id, randomUUID(), 'not-a-payment']) {
      const res = await page.goto(url(`/dashboard/pagamentos/${id}`));
      expect(res?.status()).toBe(404);
      expect(await page.locator('main').textContent()).toContain(DashboardTexts.errors.paymentNotFound);
      expect(await page.content()).not.toContain('segredo@example.com');
    }
  });

  it('filters by status', async () => {
    await page.goto(url('/dashboard/pagamentos'));
    await page.getByLabel(DashboardTexts.payments.filterLabel).selectOption('approved');
    await page.getByRole('button', { name: DashboardTexts.payments.filterSubmit }).click();
    await page.waitForURL(url('/dashboard/pagamentos?status=approved'));
    expect(await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))).toEqual([
      payments.paid.id,
    ]);
    expect(await page.locator('#total').textContent()).toBe(DashboardTexts.payments.total(1));

    await page.getByLabel(DashboardTexts.payments.filterLabel).selectOption('pending');
    await page.getByRole('button', { name: DashboardTexts.payments.filterSubmit }).click();
    await page.waitForURL(url('/dashboard/pagamentos?status=pending'));
    expect(
      await page.locator('#rows tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))),
    ).toEqual(['pending', 'pending']);

    await page.getByLabel(DashboardTexts.payments.filterLabel).selectOption('not_approved');
    await page.getByRole('button', { name: DashboardTexts.payments.filterSubmit }).click();
    await page.waitForURL(url('/dashboard/pagamentos?status=not_approved'));
    expect(await page.locator('#rows tr').count()).toBe(0);
    expect(await page.locator('#empty').isVisible()).toBe(true);
  });

  it('shows a payment created through the API without a reload', async () => {
    await page.goto(url('/dashboard/pagamentos'));
    await page.locator('#live[data-live="on"]').waitFor();
    await markDocument();
    payments.fresh = await createPayment(store, { amount: 25.5, email: 'cliente@example.com', webhookUrl });
    const row = page.locator(`#p-${payments.fresh.id}`);
    await row.waitFor({ timeout: 5000 });
    expect(await page.locator('#rows tr').first().getAttribute('data-id')).toBe(payments.fresh.id);
    expect(await row.locator('td').first().textContent()).toBe('R$ 25,50');
    expect(await row.locator('.badge').textContent()).toBe(StatusLabels.pending);
    expect(await page.locator('#total').textContent()).toBe(DashboardTexts.payments.total(4));
    expect(await sameDocument()).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-payments.png'), fullPage: true });
  }, 30_000);

  it('pays it in the sandbox from its page and shows approved within 2 s, with both deliveries and their HTTP status', async () => {
    const id = payments.fresh.id;
    await page.locator(`#p-${id} a`).click();
    await page.waitForURL(url(`/dashboard/pagamentos/${id}`));
    await page.locator('#live[data-live="on"]').waitFor();
    await markDocument();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('pending');
    expect(await page.getByLabel(DashboardTexts.payment.code).inputValue()).toMatch(/^000201/);
    expect(
      await page
        .getByRole('img', { name: DashboardTexts.payment.qrAlt })
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0);
    expect(await page.locator('#hosted-page').getAttribute('href')).toBe(url(`/pay/${id}`));

    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.pay, exact: true }).click();
    const clicked = Date.now();
    await page.locator('#status[data-status="approved"]').waitFor({ timeout: 2000 });
    expect(Date.now() - clicked).toBeLessThan(2000);
    expect(await page.locator('#status').textContent()).toBe(StatusLabels.approved);
    await page.locator('#sandbox-answer[data-ok="true"]').waitFor();
    expect(await page.locator('#sandbox-answer').textContent()).toContain('"endToEndId"');

    for (const type of ['payment.created', 'payment.status_changed']) {
      const event = page.locator(`li.event[data-type="${type}"]`);
      await event.locator('tr[data-outcome="success"]').first().waitFor({ timeout: 10_000 });
      expect(await event.getAttribute('data-delivery')).toBe('delivered');
      expect(await event.locator('tr[data-outcome="success"] .answer').first().textContent()).toBe('HTTP 200');
      const eventId = (await event.getAttribute('data-event-id')) ?? '';
      expect(receiver.events(id, type).map((h) => h.headers['webhook-id'])).toEqual([eventId]);
    }
    expect(await page.locator('li.event[data-type="payment.status_changed"] h3').textContent()).toBe(
      DashboardTexts.payment.statusChange(StatusLabels.pending, StatusLabels.approved),
    );
    expect(await sameDocument()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'payment-approved.png'), fullPage: true });
    await fitsNarrowScreen('payment-320.png');
  }, 30_000);

  it('shows the failing attempts of a broken endpoint, and Reenviar delivers again with the same webhook-id once it is fixed', async () => {
    receiver.respond = () => 500;
    const broken = await createPayment(store, { amount: 40, email: 'falha@example.com', webhookUrl });
    await page.goto(url(`/dashboard/pagamentos/${broken.id}`));
    const created = page.locator('li.event[data-type="payment.created"]');
    // Three attempts, each answered 500, then no more: the page follows each retry as it falls due.
    await page.locator('li.event[data-type="payment.created"][data-delivery="dead"]').waitFor({ timeout: 15_000 });
    const failures = created.locator('tr[data-outcome="failure"] .answer');
    expect(await failures.count()).toBe(3);
    for (const text of await failures.allTextContents()) expect(text).toMatch(/^HTTP 500/);
    const eventId = (await created.getAttribute('data-event-id')) ?? '';
    expect(eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'payment-failing.png'), fullPage: true });

    // The webhooks page counts the failure against the endpoint.
    await page.goto(url('/dashboard/webhooks'));
    const endpoint = page.locator(`#rates tr[data-url="${webhookUrl}"]`);
    expect(await endpoint.locator('td').nth(3).textContent()).toBe('1');
    expect(await endpoint.locator('.rate').textContent()).not.toBe('0%');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-webhooks.png'), fullPage: true });
    await fitsNarrowScreen('webhooks-320.png');
    expect(await page.content()).not.toContain(store.webhookSecret);
    await page.getByRole('button', { name: DashboardTexts.webhooks.reveal }).click();
    expect(await page.getByLabel(DashboardTexts.webhooks.secretLabel).inputValue()).toBe(store.webhookSecret);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      expect(await page.locator('table.headers').textContent()).toContain(header);
    }
    // The verification snippet in the SDK the merchant picks, exactly as written (escaped in the
    // HTML), one language at a time; the radios move with the arrow keys too.
    const snippets = Object.entries(DashboardTexts.webhooks.sdkSnippets);
    expect(snippets.map(([, { label }]) => label)).toEqual(['TypeScript', 'Python', 'PHP']);
    const shown = page.locator('.snippet:visible');
    for (const [lang, { label, code }] of snippets) {
      await page.getByRole('radio', { name: label }).check();
      expect(await shown.count()).toBe(1);
      expect(await shown.getAttribute('data-lang')).toBe(lang);
      expect(await shown.textContent()).toBe(code);
    }
    await fitsNarrowScreen('webhooks-php-320.png');
    await page.getByRole('radio', { name: 'PHP' }).focus();
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByRole('radio', { name: 'Python' }).isChecked()).toBe(true);
    expect(await shown.getAttribute('data-lang')).toBe('python');

    receiver.respond = () => 200;
    await page.goto(url(`/dashboard/pagamentos/${broken.id}`));
    await markDocument();
    await created.getByRole('button', { name: DashboardTexts.payment.redeliver }).click();
    await page.getByText(DashboardTexts.payment.redelivered(2)).waitFor();
    await page.locator('li.event[data-type="payment.created"][data-delivery="delivered"]').waitFor({ timeout: 10_000 });
    expect(await created.locator('tr[data-outcome="success"]').getAttribute('data-run')).toBe('2');
    expect(await created.locator('tr[data-outcome="success"] td').first().textContent()).toBe(
      `1 · ${DashboardTexts.payment.rerun(1)}`,
    );
    expect(await created.locator('tr[data-outcome="success"] .answer').textContent()).toBe('HTTP 200');
    const hooks = receiver.events(broken.id, 'payment.created');
    expect(hooks.length).toBe(4);
    expect(new Set(hooks.map((h) => h.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(await sameDocument()).toBe(true);
  }, 60_000);

  it('pays another amount from the sandbox buttons: the answer shows, and the payment goes to review live', async () => {
    const other = await createPayment(store, { amount: 30 });
    await page.goto(url(`/dashboard/pagamentos/${other.id}`));
    await page.locator('#live[data-live="on"]').waitFor();
    await page.getByLabel(DashboardTexts.payment.amountLabel).fill('abc');
    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.payAmount }).click();
    await page.locator('#sandbox-answer[data-ok="false"]').waitFor();
    expect(await page.locator('#sandbox-answer').textContent()).toContain('HTTP 400');

    await page.getByLabel(DashboardTexts.payment.amountLabel).fill('40,00');
    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.payAmount }).click();
    await page.locator('#status[data-status="review"]').waitFor({ timeout: 5000 });
    expect(await page.locator('#sandbox-answer').textContent()).toContain('"amount": 40');
    // Nothing is held for analysis after a Pix of another amount: the refusal is shown as it is.
    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.clear }).click();
    await page.locator('#sandbox-answer[data-ok="false"]').waitFor();
    expect(await page.locator('#sandbox-answer').textContent()).toMatch(/^HTTP 409/);
  }, 30_000);

  const R = DashboardTexts.payment.refunds;
  const refundRows = () => page.locator('#refund-rows tr');
  const refundsOf = async (id: string) =>
    (
      await api<{ items: { id: string; amount: number; status: string; origin: string; nature: string | null }[] }>(
        stack.gatewayUrl,
        'GET',
        `/public-api/v1/payments/${id}/refunds`,
        { token: store.token },
      )
    ).body.items;

  /** Records every status a refund's row shows, from now on (a refund may settle within moments). */
  const watchRefundStatuses = () =>
    page.evaluate(`(() => {
      const seen = (window.__refundStatuses = {});
      const record = () => {
        document.querySelectorAll('#refund-rows tr').forEach((row) => {
          const statuses = (seen[row.getAttribute('data-refund-id')] ??= []);
          const status = row.getAttribute('data-status');
          if (statuses[statuses.length - 1] !== status) statuses.push(status);
        });
      };
      new MutationObserver(record).observe(document.getElementById('refunds'), {
        subtree: true,
        childList: true,
        attributes: true,
      });
    })()`);
  const refundStatusesSeen = async (refundId: string) =>
    (await page.evaluate(`window.__refundStatuses[${JSON.stringify(refundId)}] || []`)) as string[];

  /** A refund event of the timeline, delivered to the receiver with HTTP 200 under its webhook-id. */
  async function deliveredRefundEvent(refundId: string, type: string): Promise<void> {
    const event = page.locator(`li.event[data-type="${type}"][data-refund-id="${refundId}"]`);
    await event.locator('tr[data-outcome="success"]').first().waitFor({ timeout: 10_000 });
    expect(await event.getAttribute('data-delivery')).toBe('delivered');
    expect(await event.locator('tr[data-outcome="success"] .answer').first().textContent()).toBe('HTTP 200');
    const eventId = (await event.getAttribute('data-event-id')) ?? '';
    expect(receiver.events(refundId, type).map((h) => h.headers['webhook-id'])).toEqual([eventId]);
  }

  it('refunds part of an approved payment from its page: what is left before and after, pending then Concluído live, with its webhooks', async () => {
    const id = payments.fresh.id;
    await page.goto(url(`/dashboard/pagamentos/${id}`));
    await page.locator('#live[data-live="on"]').waitFor();
    await markDocument();
    const F = DashboardTexts.payment.refund;
    expect(await page.locator('#cancel-section').isVisible()).toBe(false);
    expect(await page.getByRole('heading', { name: F.title, exact: true }).isVisible()).toBe(true);
    expect(await page.locator('#refund-available').textContent()).toBe('R$ 25,50');
    expect(await page.locator('#refunded-amount').textContent()).toBe('R$ 0,00');
    expect(await page.locator('#refunds-empty').textContent()).toBe(R.empty);
    // When the charge expires, in São Paulo's time like every time of the page.
    const created = await api<{ expiresAt: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, {
      token: store.token,
    });
    expect(await page.locator('#expires-at time').getAttribute('datetime')).toBe(created.body.expiresAt);

    await watchRefundStatuses();
    await page.getByLabel(F.amountLabel).fill('10,00');
    await page.getByLabel(F.reasonLabel).fill('Devolução de um item');
    expect(await page.getByLabel(F.reasonLabel).getAttribute('maxlength')).toBe('140');
    await page.getByRole('button', { name: F.submit, exact: true }).click();
    await page.locator('#refund-answer[data-ok="true"]').waitFor();
    expect(await page.locator('#refund-answer').textContent()).toBe(F.requested('R$ 10,00'));
    expect(await page.getByLabel(F.amountLabel).inputValue()).toBe('');

    const row = refundRows().first();
    const refundId = (await row.getAttribute('data-refund-id')) ?? '';
    await page.locator(`#refund-${refundId}[data-status="succeeded"]`).waitFor({ timeout: 10_000 });
    expect(await refundStatusesSeen(refundId)).toEqual(['pending', 'succeeded']);
    expect(await row.locator('.refund-amount').textContent()).toBe('R$ 10,00');
    expect(await row.locator('.refund-status').textContent()).toBe(R.statuses.succeeded);
    expect(await row.locator('.refund-origin').textContent()).toBe(R.origins.merchant);
    expect(await row.locator('.refund-reason').textContent()).toBe('Devolução de um item');
    expect(await row.locator('.refund-settled time').count()).toBe(1);
    await page.locator('#refunded-amount', { hasText: 'R$ 10,00' }).waitFor();
    await page.locator('#refund-available', { hasText: 'R$ 15,50' }).waitFor();
    expect(await page.locator('#status').getAttribute('data-status')).toBe('approved');

    await deliveredRefundEvent(refundId, 'refund.created');
    await deliveredRefundEvent(refundId, 'refund.succeeded');
    expect(await page.locator(`li.event[data-type="refund.succeeded"] h3`).textContent()).toBe(
      DashboardTexts.payment.refundEvents['refund.succeeded']('R$ 10,00'),
    );
    expect(await sameDocument()).toBe(true);
  }, 60_000);

  it("refuses an amount above what is left with the API's message, and changes nothing", async () => {
    const F = DashboardTexts.payment.refund;
    await page.getByLabel(F.amountLabel).fill('20,00');
    await page.getByRole('button', { name: F.submit, exact: true }).click();
    await page.locator('#refund-answer[data-ok="false"]').waitFor();
    expect(await page.locator('#refund-answer').textContent()).toBe(ErrorMessages.refundAboveLeft(1550));
    await page.getByLabel(F.amountLabel).fill('10,001');
    await page.getByRole('button', { name: F.submit, exact: true }).click();
    await page.locator('#refund-answer', { hasText: ErrorMessages.refundAmountInvalid }).waitFor();
    expect(await refundRows().count()).toBe(1);
    expect(await refundsOf(payments.fresh.id)).toHaveLength(1);
    expect(await page.locator('#refund-available').textContent()).toBe('R$ 15,50');
  });

  it('settles the next refund as not done after Recusar o próximo reembolso: Não realizado, with its reason', async () => {
    const F = DashboardTexts.payment.refund;
    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.failNextRefund }).click();
    await page.locator('#sandbox-answer[data-ok="true"]').waitFor();
    const armed = JSON.parse(((await page.locator('#sandbox-answer').textContent()) ?? '').replace(/^HTTP 200\n/, ''));
    expect(armed.failureReason).toEqual(expect.any(String));

    await page.getByLabel(F.amountLabel).fill('5');
    await page.getByRole('button', { name: F.submit, exact: true }).click();
    await page.locator('#refund-answer', { hasText: F.requested('R$ 5,00') }).waitFor();
    const row = refundRows().first();
    const refundId = (await row.getAttribute('data-refund-id')) ?? '';
    await page.locator(`#refund-${refundId}[data-status="failed"]`).waitFor({ timeout: 10_000 });
    expect(await refundStatusesSeen(refundId)).toEqual(['pending', 'failed']);
    expect(await row.locator('.refund-status .badge').textContent()).toBe(R.statuses.failed);
    expect(await row.locator('.failure-reason bdi').textContent()).toBe(armed.failureReason);
    // A refund not done leaves its money to refund, and nothing was returned.
    await page.locator('#refund-available', { hasText: 'R$ 15,50' }).waitFor();
    expect(await page.locator('#refunded-amount').textContent()).toBe('R$ 10,00');
    await deliveredRefundEvent(refundId, 'refund.failed');

    const contrast = await contrastRatios(page, [
      '.refund-succeeded',
      '.refund-failed',
      '.failure-reason',
      '#refund-answer',
      '#refund-amount-hint',
      '#refund-available',
    ]);
    for (const { selector, ratio } of contrast) expect({ selector, aa: ratio >= 4.5 }).toEqual({ selector, aa: true });
  }, 30_000);

  it('makes one refund of a double-submitted form, and of its request sent twice', async () => {
    const F = DashboardTexts.payment.refund;
    const id = payments.fresh.id;
    const before = await refundsOf(id);
    const nonce = await page.locator('#refund-id').inputValue();
    // Every refund request the page sends is sent a second time, at the same moment, as a retry would.
    const replays: Promise<{ status: number; refundId: string }>[] = [];
    await page.route('**/reembolsos', async (route) => {
      const request = route.request();
      const headers = await request.allHeaders();
      replays.push(
        context.request
          .post(request.url(), {
            headers: {
              'content-type': 'application/json',
              'x-csrf-token': headers['x-csrf-token'] ?? '',
              origin: new URL(stack.gatewayUrl).origin,
            },
            data: request.postData() ?? '',
          })
          .then(async (res) => ({
            status: res.status(),
            refundId: ((await res.json()) as { refund: { id: string } }).refund.id,
          })),
      );
      await route.continue();
    });
    await page.getByLabel(F.amountLabel).fill('1,00');
    await page.getByRole('button', { name: F.submit, exact: true }).dblclick();
    await page.locator('#refund-answer', { hasText: F.requested('R$ 1,00') }).waitFor();
    await page.unroute('**/reembolsos');
    const replayed = await Promise.all(replays);
    expect(replayed).toHaveLength(1);
    const shown = (await refundRows().first().getAttribute('data-refund-id')) ?? '';
    expect(replayed).toEqual([{ status: 200, refundId: shown }]);
    const after = await refundsOf(id);
    expect(after).toHaveLength(before.length + 1);
    expect(after.filter((r) => r.amount === 1).map((r) => r.id)).toEqual([shown]);
    await page.locator(`#refund-${shown}[data-status="succeeded"]`).waitFor({ timeout: 10_000 });
    await page.locator('#refunded-amount', { hasText: 'R$ 11,00' }).waitFor();
    await page.locator('#refund-available', { hasText: 'R$ 14,50' }).waitFor();
    expect(await refundRows().count()).toBe(3);
    // The refund is the one the page's refund id named; the next one will be another.
    expect(shown).toBe(nonce);
    expect(await page.locator('#refund-id').inputValue()).not.toBe(nonce);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-payment.png'), fullPage: true });
    await fitsNarrowScreen('payment-refunds-320.png');
  }, 30_000);

  it("shows the PSP's own return after Devolução MED: a refund of origin PSP, of all that was left", async () => {
    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.med }).click();
    await page.locator('#sandbox-answer[data-ok="true"]').waitFor();
    const made = JSON.parse(((await page.locator('#sandbox-answer').textContent()) ?? '').replace(/^HTTP 200\n/, ''));
    expect(made).toMatchObject({ paymentId: payments.fresh.id, amount: 14.5, nature: 'med_fraud' });
    const row = page.locator('#refund-rows tr[data-origin="psp"]');
    await row.waitFor({ timeout: 10_000 });
    await page.locator('#refunded-amount', { hasText: 'R$ 25,50' }).waitFor({ timeout: 10_000 });
    expect(await row.locator('.refund-origin').textContent()).toBe(R.origins.psp);
    expect(await refundRows().count()).toBe(4);
    const theirs = (await refundsOf(payments.fresh.id)).filter((r) => r.origin === 'psp');
    expect(theirs).toEqual([expect.objectContaining({ amount: 14.5, nature: 'med_fraud' })]);
  }, 30_000);

  it('shows a refund made through the API live, its hostile reason as text, and after a reload too', async () => {
    const hostile = `<script>alert(1)</script>"' \u202Eodnuf`;
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const id = payments.paid.id;
    await page.goto(url(`/dashboard/pagamentos/${id}`));
    await page.locator('#live[data-live="on"]').waitFor();
    await markDocument();
    await watchRefundStatuses();
    // Made elsewhere (the merchant's backend): the page hears it from its stream alone.
    const made = await api<{ id: string }>(stack.gatewayUrl, 'POST', `/public-api/v1/payments/${id}/refunds`, {
      token: store.token,
      body: { amount: 1, reason: hostile },
    });
    expect(made.status).toBe(200);
    const row = page.locator(`#refund-${made.body.id}`);
    await page.locator(`#refund-${made.body.id}[data-status="succeeded"]`).waitFor({ timeout: 10_000 });
    expect(await refundStatusesSeen(made.body.id)).toContain('succeeded');
    await page.locator('#refunded-amount', { hasText: 'R$ 1,00' }).waitFor();
    await page.locator('#refund-available', { hasText: 'R$ 88,90' }).waitFor();
    await deliveredRefundEvent(made.body.id, 'refund.succeeded');
    expect(await sameDocument()).toBe(true);
    for (const view of ['live', 'reloaded']) {
      if (view === 'reloaded') await page.reload();
      expect(await row.locator('.refund-reason').textContent()).toBe(hostile);
      expect(await row.locator('.refund-reason bdi').count()).toBe(1);
      expect(await page.locator('#refunds script').count()).toBe(0);
    }
    expect(dialogs).toEqual([]);
  }, 30_000);

  it('cancels a pending payment after a confirmation: Não aprovado live, and Cancelar is gone', async () => {
    const C = DashboardTexts.payment.cancel;
    const id = payments.big.id;
    await page.goto(url(`/dashboard/pagamentos/${id}`));
    await page.locator('#live[data-live="on"]').waitFor();
    await markDocument();
    expect(await page.locator('#refund-section').isVisible()).toBe(false);
    const open = page.getByRole('button', { name: C.button });
    const dialog = page.getByRole('dialog', { name: C.confirmTitle });

    // By keyboard: the dialog opens on the safe choice, and Escape leaves the payment as it was.
    await open.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('cancel-keep');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: C.button }).click();
    await dialog.getByRole('button', { name: C.keep }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.locator('#status').getAttribute('data-status')).toBe('pending');

    await open.click();
    await fitsNarrowScreen('payment-cancel-320.png');
    await dialog.getByRole('button', { name: C.confirm }).click();
    await page.locator('#status[data-status="not_approved"]').waitFor({ timeout: 5000 });
    expect(await page.locator('#status').textContent()).toBe(StatusLabels.not_approved);
    // The live status can arrive before the cancel's own answer: the answer is waited for, not raced.
    await page.locator('#payment-answer').filter({ hasText: C.done }).waitFor({ timeout: 5000 });
    expect(await page.locator('#payment-answer').textContent()).toBe(C.done);
    expect(await open.isVisible()).toBe(false);
    expect(await page.locator('#refund-section').isVisible()).toBe(false);
    const now = await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${id}`, {
      token: store.token,
    });
    expect(now.body.status).toBe('not_approved');
    await page.locator('li.event[data-type="payment.status_changed"] h3').waitFor({ timeout: 10_000 });
    expect(await page.locator('li.event[data-type="payment.status_changed"] h3').textContent()).toBe(
      DashboardTexts.payment.statusChange(StatusLabels.pending, StatusLabels.not_approved),
    );

    // A Pix that arrives after the cancel goes back to its payer by itself, and the page shows it.
    await page.getByRole('button', { name: DashboardTexts.payment.sandboxActions.payLate }).click();
    await page.locator('#sandbox-answer[data-ok="true"]').waitFor();
    const back = refundRows().first();
    await back.waitFor({ timeout: 10_000 });
    expect(await back.locator('.refund-origin').textContent()).toBe(R.origins.platform);
    expect(await back.locator('.refund-amount').textContent()).toBe('R$ 1.234,50');
    expect(await back.locator('.refund-reason').textContent()).toBe(PlatformRefundReasons.latePix);
    await page.locator('#refund-rows tr[data-origin="platform"][data-status="succeeded"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('#status').getAttribute('data-status')).toBe('not_approved');
    expect(await page.locator('#refunded-amount').textContent()).toBe('R$ 0,00');
    expect(await sameDocument()).toBe(true);
  }, 60_000);

  it('logs out, and the session is refused afterwards', async () => {
    const before = (await context.cookies()).find((c) => c.name === 'pix_dashboard');
    if (!before) throw new Error('no session cookie before logging out');
    const withCopiedCookie = () =>
      fetch(url('/dashboard/pagamentos'), {
        headers: { cookie: `pix_dashboard=${before.value}` },
        redirect: 'manual',
      });
    expect((await withCopiedCookie()).status).toBe(200);
    await page.goto(url('/dashboard/pagamentos'));
    await page.getByRole('button', { name: DashboardTexts.nav.logout }).click();
    await page.waitForURL(url('/dashboard/entrar?motivo=saiu'));
    expect(await page.getByText(DashboardTexts.login.loggedOut).isVisible()).toBe(true);
    expect((await context.cookies()).map((c) => c.name)).not.toContain('pix_dashboard');
    const res = await page.goto(url('/dashboard/pagamentos'));
    expect(new URL(page.url()).pathname).toBe('/dashboard/entrar');
    expect(res?.status()).toBe(200);
    const stream = await page.evaluate(() => fetch('/dashboard/stream').then((r) => r.status));
    expect(stream).toBe(401);
    const redeliver = await page.evaluate(() =>
      fetch('/dashboard/eventos/evt_00000000000000000000000000000000/reenviar', { method: 'POST' }).then(
        (r) => r.status,
      ),
    );
    expect(redeliver).toBe(401);
    // A copy of the cookie taken before Sair is refused as well: the session ended on the server.
    const copied = await withCopiedCookie();
    expect(copied.status).toBe(303);
    expect(copied.headers.get('location')).toBe('/dashboard/entrar?motivo=sessao');
  });

  it('ends an open session within a second or two of the token being revoked', async () => {
    await page.getByLabel(DashboardTexts.login.tokenLabel).fill(store.token);
    await page.getByRole('button', { name: DashboardTexts.login.submit }).click();
    await page.waitForURL(url('/dashboard/pagamentos'));
    await page.locator('#live[data-live="on"]').waitFor();
    // A state-changing request without the CSRF token is refused even with the session.
    const forged = await page.evaluate(() =>
      fetch('/dashboard/eventos/evt_00000000000000000000000000000000/reenviar', { method: 'POST' }).then(
        (r) => r.status,
      ),
    );
    expect(forged).toBe(403);

    await admin(stack, 'token', 'revoke', store.token);
    const revoked = Date.now();
    // The open stream checks its session every second and sends the page to the login.
    await page.waitForURL(url('/dashboard/entrar?motivo=sessao'), { timeout: 5000 });
    expect(Date.now() - revoked).toBeLessThan(3000);
    expect(await page.getByText(DashboardTexts.login.sessionEnded).isVisible()).toBe(true);

    const origin = new URL(stack.gatewayUrl).origin;
    expect(requests.filter((r) => new URL(r).origin !== origin)).toEqual([]);
  }, 30_000);

  it("caps a store's live streams, the payment pages' too, with a 429, a metric, and room again once one closes", async () => {
    const aborts: AbortController[] = [];
    const open = async () => {
      const abort = new AbortController();
      const res = await fetch(url(`/pay/${payments.others.id}/events`), { signal: abort.signal });
      if (res.status === 200) aborts.push(abort);
      else abort.abort();
      return res;
    };
    try {
      for (let i = 0; i < STREAMS_PER_STORE; i++) expect((await open()).status).toBe(200);
      const refused = await open();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const metrics = await (await fetch(`${stack.opsUrls.gateway}/metrics`)).text();
      expect(metrics).toMatch(/sse_connections\{kind="payment_page"[^}]*\} 3/);
      expect(metrics).toMatch(/sse_connections_refused_total\{kind="payment_page",reason="store_full"[^}]*\} 1/);

      aborts.pop()?.abort();
      // The gateway sees the close a moment later, and the slot is free again.
      let again = 0;
      for (let i = 0; i < 20 && again !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        again = (await open()).status;
      }
      expect(again).toBe(200);
    } finally {
      for (const abort of aborts) abort.abort();
    }
  }, 30_000);
});
