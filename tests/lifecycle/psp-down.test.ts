import { api } from '../support/api';
import { eventually } from '../support/api';
import { paymentsClient } from '../support/payments';
import { decodeQrImage } from '../support/qr';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * The PSP down at create: the payment is created (200, pending) with null QR fields, the failure is
 * counted, and once the adapter is up the charge is completed in the background.
 */
describe('PSP down at create', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({
      services: ['payments', 'webhook-dispatcher', 'gateway'],
      // The PSP is up; the adapter that speaks to it is what is down at create.
      pspSimulator: true,
      env: { PSP_TIMEOUT: '300ms' },
    });
  });
  afterAll(() => stack.stop());

  it('creates with null QR fields and completes the charge later', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(33.3);
    expect(payment).toMatchObject({ status: 'pending', amount: 33.3, qrCodeUrl: null, qrCopyPaste: null });

    const metrics = await api<string>(stack.opsUrls.payments, 'GET', '/metrics');
    expect(metrics.body).toMatch(/^psp_charge_failures_total\{[^}]*\} [1-9]/m);
    expect(metrics.body).toMatch(/^payments_created_total\{[^}]*is_public="true"[^}]*\} 1$/m);
    expect(metrics.body).toMatch(/^outbox_pending_events\{[^}]*\} \d+$/m);

    await stack.startService('pix-provider-adapter', {}, stack.ports.ops['pix-provider-adapter']);
    const completed = await eventually(
      () => client.get(payment.id),
      (p) => p.qrCopyPaste !== null,
      40_000,
      250,
    );
    expect(completed.status).toBe('pending');
    expect(completed.qrCodeUrl).toBe(`${stack.gatewayUrl}/public-api/v1/qrcodes/${payment.id}.png`);
    expect(await decodeQrImage(String(completed.qrCodeUrl))).toBe(completed.qrCopyPaste);
    const adapterMetrics = await api<string>(stack.opsUrls['pix-provider-adapter'], 'GET', '/metrics');
    expect(adapterMetrics.body).toMatch(
      /^psp_requests_total\{[^}]*operation="create_charge"[^}]*outcome="success"[^}]*\} [1-9]/m,
    );
  });
});
