import { parsePix, hasError } from 'pix-utils';
import { PlatformRefundReasons, SandboxMessages } from '@pix/contracts';
import { admin, adminFails } from '../support/admin';
import { eventually } from '../support/api';
import { withDb, withPspDb } from '../support/db';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { decodeQrImage } from '../support/qr';
import { sharedStack } from '../support/stack';

/**
 * The payment lifecycle driven by the sandbox PSP and the admin CLI, on the shared stack (default
 * PIX_CHARGE_TTL and REVIEW_TIMEOUT, so nothing here changes by the clock).
 */
describe('payment lifecycle on the running stack', () => {
  const stack = sharedStack();
  let client: Awaited<ReturnType<typeof paymentsClient>>;

  beforeAll(async () => {
    client = await paymentsClient(stack);
  });

  async function expectOneChange(id: string, previousStatus: string, status: string): Promise<void> {
    const events = await eventually(
      async () => (await statusChangedEvents(stack, id)).filter((e) => e.data.body.status === status),
      (found) => found.length >= 1,
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.data.body.previousStatus).toBe(previousStatus);
  }

  it('pending -> approved when the exact amount is paid', async () => {
    const payment = await client.create(42.1);
    await admin(stack, 'sandbox', 'pay', payment.id);
    await client.waitForStatus(payment.id, 'approved');
    await expectOneChange(payment.id, 'pending', 'approved');
  });

  it('pending -> review when another amount is paid', async () => {
    const payment = await client.create(42.1);
    const paid = await admin(stack, 'sandbox', 'pay', payment.id, '--amount', '40.00');
    expect(paid.amount).toBe(40);
    await client.waitForStatus(payment.id, 'review');
    await expectOneChange(payment.id, 'pending', 'review');
  });

  it('pending -> review -> approved when the PSP holds the Pix and its analysis clears it', async () => {
    const payment = await client.create(10);
    await admin(stack, 'sandbox', 'review', payment.id);
    await client.waitForStatus(payment.id, 'review');
    await admin(stack, 'sandbox', 'clear', payment.id);
    await client.waitForStatus(payment.id, 'approved');
    await expectOneChange(payment.id, 'pending', 'review');
    await expectOneChange(payment.id, 'review', 'approved');
  });

  it('review -> not_approved when the analysis rejects: the paid amount is refunded at the PSP', async () => {
    const payment = await client.create(10);
    const held = await admin<{ endToEndId: string }>(stack, 'sandbox', 'review', payment.id);
    await client.waitForStatus(payment.id, 'review');
    await admin(stack, 'sandbox', 'reject', payment.id);
    await client.waitForStatus(payment.id, 'not_approved');
    await expectOneChange(payment.id, 'review', 'not_approved');
    // The refund settles through the PSP's callback, as a merchant's does.
    const refunded = await eventually(
      () => client.get(payment.id),
      (p) => p.refundedAmount === 10,
    );
    expect(refunded.status).toBe('not_approved');
    await withPspDb(stack, async (db) => {
      const refunds = await db.collection('sandbox_psp_refunds').find({ endToEndId: held.endToEndId }).toArray();
      expect(refunds).toHaveLength(1);
      expect(refunds[0]).toMatchObject({
        amountCents: 1000,
        requests: 1,
        devolucao: { status: 'DEVOLVIDO', valor: '10.00' },
      });
      const stored = await withDb(stack.mongoAdminUrl!, (platform) =>
        platform.collection('payments').findOne({ _id: payment.id as never }),
      );
      expect(stored?.refunds).toMatchObject([
        {
          endToEndId: held.endToEndId,
          origin: 'platform',
          status: 'succeeded',
          reason: PlatformRefundReasons.analysisRejected,
        },
      ]);
    });
  });

  it('a charge is paid once: a repeated pay answers the same Pix, another amount is refused, nothing changes', async () => {
    const payment = await client.create(15);
    const first = await admin<{ endToEndId: string }>(stack, 'sandbox', 'pay', payment.id);
    await client.waitForStatus(payment.id, 'approved');
    const again = await admin<{ endToEndId: string }>(stack, 'sandbox', 'pay', payment.id);
    expect(again).toEqual(first);
    const other = await adminFails(stack, 'sandbox', 'pay', payment.id, '--amount', '16.00');
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain(SandboxMessages.chargePaidOtherwise);
    await expectOneChange(payment.id, 'pending', 'approved');
  });

  it('admin drives the internal statuses through the state machine and is refused where it refuses', async () => {
    const payment = await client.create(20);
    const early = await adminFails(stack, 'payment', 'transition', payment.id, 'paid');
    expect(early.code).not.toBe(0);
    expect(early.stderr).toContain('transition pending -> paid is not allowed');
    const publicStatus = await adminFails(stack, 'payment', 'transition', payment.id, 'approved');
    expect(publicStatus.stderr).toContain('reached only through the payment lifecycle');

    await admin(stack, 'sandbox', 'pay', payment.id);
    await client.waitForStatus(payment.id, 'approved');
    let previous = 'approved';
    for (const status of ['paid', 'withdrawal_processing', 'receipt_sent']) {
      const moved = await admin(stack, 'payment', 'transition', payment.id, status);
      expect(moved).toEqual({ paymentId: payment.id, previousStatus: previous, status });
      expect((await client.get(payment.id)).status).toBe(status);
      previous = status;
    }
    const after = await adminFails(stack, 'payment', 'transition', payment.id, 'rejected');
    expect(after.stderr).toContain('transition receipt_sent -> rejected is not allowed');
    for (const [from, to] of [
      ['approved', 'paid'],
      ['paid', 'withdrawal_processing'],
      ['withdrawal_processing', 'receipt_sent'],
    ]) {
      await expectOneChange(payment.id, String(from), String(to));
    }

    const pending = await client.create(20);
    await admin(stack, 'payment', 'transition', pending.id, 'rejected');
    expect((await client.get(pending.id)).status).toBe('rejected');
    const unknown = await adminFails(stack, 'payment', 'transition', 'no-such-payment', 'paid');
    expect(unknown.stderr).toContain('error 404');
  });

  it('qrCodeUrl decodes to exactly qrCopyPaste, a valid dynamic Pix BR Code', async () => {
    const payment = await client.create(25.5);
    const qrCopyPaste = String(payment.qrCopyPaste);
    expect(await decodeQrImage(String(payment.qrCodeUrl))).toBe(qrCopyPaste);
    const pix = parsePix(qrCopyPaste);
    if (hasError(pix)) throw new Error(pix.message);
    expect(pix).toMatchObject({ type: 'DYNAMIC', merchantName: 'PIX PAYMENTS SANDBOX', merchantCity: 'SAO PAULO' });
    expect(qrCopyPaste).toContain('0014br.gov.bcb.pix');
    expect(qrCopyPaste).toMatch(/6304[0-9A-F]{4}$/);
    await withPspDb(stack, async (db) => {
      const cob = await db.collection('sandbox_psp_cobs').findOne({ _id: payment.id.replace(/-/g, '') as never });
      expect(cob?.cob).toMatchObject({ pixCopiaECola: qrCopyPaste, valor: { original: '25.50' } });
      expect(pix.type === 'DYNAMIC' && pix.url).toBe(cob?.cob.location);
    });
  });
});
