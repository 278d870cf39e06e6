import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from '@pix/devstack';
import { PaymentPageTexts, SandboxMessages } from '@pix/contracts';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandCounts, commandsBetween } from '../support/db-commands';
import { contrastRatios, launchChromium } from '../support/browser';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/** Debian's chromium (scripts/install-system-packages.sh); playwright-core downloads no browser. */
/** Screenshots of each state, kept after the run (.run/ is not committed). */
const ARTIFACTS = path.join(ROOT, '.run', 'artifacts', 'payment-page');
/** Short enough to watch a charge expire, long enough to pay one on a loaded machine. */
const CHARGE_TTL_SECONDS = 20;

interface Payment {
  id: string;
  qrCopyPaste: string;
  storeId: string;
}

/**
 * The hosted payment page in headless Chromium, as a customer uses it: the store, the amount, the
 * QR code (decoded from the pixels on the page), the copy button (by keyboard), the live status
 * (Server-Sent Events from the PAYMENTS stream) through approval, expiry and a gateway restart.
 */
describe('hosted payment page in a real browser', () => {
  let stack: PrivateStack;
  let browser: Browser;
  let store: StoreCredentials;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    [stack, browser] = await Promise.all([
      startPrivateStack({ env: { PIX_CHARGE_TTL: `${CHARGE_TTL_SECONDS}s` } }),
      launchChromium(),
    ]);
    store = await createStore(stack, 'Loja da Ana');
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function createPayment(amount: number): Promise<Payment> {
    const res = await api<Payment>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount, email: 'cliente@example.com', observation: 'Pedido 42', webhookUrl: 'http://127.0.0.1:9/hooks' },
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  async function open(
    id: string,
    viewport = { width: 390, height: 844 },
  ): Promise<{ context: BrowserContext; page: Page; requests: string[] }> {
    const context = await browser.newContext({ viewport, locale: 'pt-BR' });
    context.setDefaultTimeout(10_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.gatewayUrl });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const events = page.waitForResponse((res) => res.url().endsWith(`/pay/${id}/events`));
    const res = await page.goto(`${stack.gatewayUrl}/pay/${id}`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self';/);
    await events;
    // The page is never reloaded below: this mark would be gone.
    await page.evaluate('window.__sameDocument = true');
    return { context, page, requests };
  }

  const phaseOf = (page: Page) => page.locator('#payment').getAttribute('data-phase');
  const sameDocument = (page: Page) => page.evaluate('window.__sameDocument === true');

  it('shows the payment, its QR code and copy button at 320 px, and turns approved within 2 s of the payment', async () => {
    const payment = await createPayment(25.5);
    const { context, page, requests } = await open(payment.id, { width: 320, height: 900 });

    expect(await page.locator('#store').textContent()).toBe('Loja da Ana');
    expect(await page.locator('#amount').textContent()).toBe('R$ 25,50');
    expect(await page.locator('#phase').textContent()).toBe(PaymentPageTexts.phases.pending);
    expect(await page.locator('#time-left').textContent()).toMatch(/^0:00:[0-2]\d$/);
    const html = await page.content();
    for (const secret of ['cliente@example.com', 'Pedido 42', 'http://127.0.0.1:9/hooks', payment.storeId]) {
      expect(html).not.toContain(secret);
    }
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(320);

    // What a screen reader finds: the QR image's name, the labelled code, the button, the status.
    // page.goto waited for the load event, so the image is there.
    const qr = page.getByRole('img', { name: PaymentPageTexts.qrAlt });
    const png = PNG.sync.read(await qr.screenshot());
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).toBe(payment.qrCopyPaste);
    expect(await page.getByLabel(PaymentPageTexts.code).inputValue()).toBe(payment.qrCopyPaste);
    expect(await page.getByRole('status').first().textContent()).toContain(PaymentPageTexts.phases.pending);

    // Keyboard alone: Tab to the copy button, Enter, and the code is on the clipboard.
    let focused = '';
    for (let i = 0; i < 10 && focused !== 'copy'; i++) {
      await page.keyboard.press('Tab');
      focused = String(await page.evaluate('document.activeElement && document.activeElement.id'));
    }
    expect(focused).toBe('copy');
    await page.keyboard.press('Enter');
    await page.getByText(PaymentPageTexts.copied).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payment.qrCopyPaste);

    const contrast = await contrastRatios(page, [
      '#store',
      '#amount',
      'dt',
      '#phase',
      '#detail',
      '.time-left',
      'label',
      '#code',
      '#copy',
      '#copy-result',
      '.live',
    ]);
    for (const { selector, ratio } of contrast) expect({ selector, aa: ratio >= 4.5 }).toEqual({ selector, aa: true });
    await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'pending.png') });

    // Paid through the public sandbox route; the page follows without a reload.
    const paid = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payment.id}/pay`, {
      token: store.token,
    });
    expect(paid.status).toBe(200);
    await page.locator('#payment[data-phase="approved"]').waitFor({ timeout: 2000 });
    expect(await page.locator('#phase').textContent()).toBe(PaymentPageTexts.phases.approved);
    expect(await page.locator('#pay').isHidden()).toBe(true);
    expect(await sameDocument(page)).toBe(true);
    await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'approved.png') });

    const origin = new URL(stack.gatewayUrl).origin;
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    await context.close();
  }, 60_000);

  it(
    'shows an expired payment as expired, without the QR code, live and on a fresh load',
    async () => {
      const payment = await createPayment(12);
      const { context, page } = await open(payment.id);
      expect(await phaseOf(page)).toBe('pending');
      await page.locator('#payment[data-phase="expired"]').waitFor({ timeout: (CHARGE_TTL_SECONDS + 10) * 1000 });
      expect(await page.locator('#pay').isHidden()).toBe(true);
      expect(await page.locator('#phase').textContent()).toBe(PaymentPageTexts.phases.expired);
      await eventually(
        async () =>
          (
            await api<{ status: string }>(stack.gatewayUrl, 'GET', `/public-api/v1/payments/${payment.id}`, {
              token: store.token,
            })
          ).body.status,
        (status) => status === 'not_approved',
      );
      expect(await sameDocument(page)).toBe(true);
      await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'expired.png') });

      const fresh = await context.newPage();
      await fresh.goto(`${stack.gatewayUrl}/pay/${payment.id}`);
      expect(await phaseOf(fresh)).toBe('expired');
      expect(await fresh.locator('#pay').isHidden()).toBe(true);
      const late = await api(stack.gatewayUrl, 'POST', `/public-api/v1/sandbox/payments/${payment.id}/pay`, {
        token: store.token,
      });
      expect(late).toMatchObject({ status: 409, body: { message: SandboxMessages.chargeExpired } });
      await context.close();
    },
    (CHARGE_TTL_SECONDS + 40) * 1000,
  );

  it('catches up after a gateway restart: the stream reconnects and shows the current state', async () => {
    const payment = await createPayment(7.77);
    const { context, page } = await open(payment.id);
    const before = await commandCounts(stack);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // An open page costs the gateway no database command: its status comes from the stream.
    const gatewayCommands = [...commandsBetween(before, await commandCounts(stack))].filter(([key]) =>
      key.startsWith('gateway '),
    );
    expect(gatewayCommands).toEqual([]);

    const [gateway] = stack.processesOf('gateway').slice(-1);
    if (!gateway) throw new Error('no gateway process');
    await stack.stopProcess(gateway);
    await admin(stack, 'sandbox', 'pay', payment.id);
    await stack.startService('gateway');
    await page.locator('#payment[data-phase="approved"]').waitFor({ timeout: 15_000 });
    expect(await sameDocument(page)).toBe(true);
    await context.close();
  }, 60_000);

  it("shows a hostile store name as text, runs none of it, and loads its script by the content's hash", async () => {
    const hostile = `<img src=x onerror="window.__injected=1"><script>window.__injected=1</script>"' javascript:alert(1) \u202Eodnuf`;
    const owner = await createStore(stack, hostile);
    const res = await api<Payment>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: owner.token,
      body: { amount: 9.99 },
    });
    expect(res.status).toBe(200);
    const { context, page, requests } = await open(res.body.id);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    expect(await page.locator('#store').textContent()).toBe(hostile);
    expect(await page.title()).toBe(`${PaymentPageTexts.title} · ${hostile}`);
    expect(await page.locator('main img[src="x"], main script').count()).toBe(0);
    expect(await page.evaluate('window.__injected')).toBeUndefined();
    expect(dialogs).toEqual([]);

    // One script, under a name that carries its content's hash, cached for good.
    const src = await page.locator('head script').getAttribute('src');
    expect(src).toMatch(/^\/pay\/assets\/payment-page\.[A-Z0-9]{8}\.js$/);
    expect(await page.locator('script').count()).toBe(1);
    expect(requests).toContain(`${stack.gatewayUrl}${src}`);
    const script = await fetch(`${stack.gatewayUrl}${src}`);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
    await context.close();
  }, 30_000);

  it('answers an unknown payment with a 404 page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    for (const id of [randomUUID(), 'not-a-payment']) {
      const res = await page.goto(`${stack.gatewayUrl}/pay/${id}`);
      expect(res?.status()).toBe(404);
      expect(res?.headers()['content-type']).toMatch(/^text\/html/);
      expect(await page.locator('h1').textContent()).toBe(PaymentPageTexts.notFoundTitle);
    }
    await context.close();
  });
});
