import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { qrCodeUrlFor, requestCharge, type CreateDeps } from './create-payment';
import { PaymentModel, type PaymentDoc } from './model';
import { withPaymentLock } from './payment-lock';

const MAX_BACKOFF_MS = 60_000;

/**
 * Completes charges the PSP could not take at create time. Each attempt first claims the payment
 * by pushing its next attempt time forward (a conditional update), so replicas do not pile onto
 * the same charge; the PSP call itself is idempotent by txid, so a rare double attempt is harmless.
 */
export class ChargeCompleter {
  private readonly task: Periodic;

  constructor(
    private readonly deps: CreateDeps,
    private readonly logger: Logger,
    intervalMs: number,
  ) {
    this.task = new Periodic(
      () => this.pass(),
      intervalMs,
      (err) => logger.error({ err, task: 'charge completer' }, 'background pass failed'),
    );
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  private async pass(): Promise<void> {
    const now = new Date();
    const due = await PaymentModel.find({ chargeCreated: false, chargeNextAttemptAt: { $lte: now } })
      .limit(20)
      .lean<PaymentDoc[]>();
    for (const doc of due) {
      const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(doc.chargeAttempts, 16));
      const claimed = await withPaymentLock(doc._id, () =>
        PaymentModel.updateOne(
          { _id: doc._id, chargeCreated: false, chargeNextAttemptAt: doc.chargeNextAttemptAt },
          { $set: { chargeNextAttemptAt: new Date(Date.now() + backoff) }, $inc: { chargeAttempts: 1 } },
        ),
      );
      if (claimed.modifiedCount !== 1) continue;
      const charge = await requestCharge(this.deps, doc);
      if (!charge) continue;
      await withPaymentLock(doc._id, () =>
        PaymentModel.updateOne(
          { _id: doc._id, chargeCreated: false },
          {
            $set: {
              chargeCreated: true,
              chargeNextAttemptAt: null,
              qrCopyPaste: charge.qrCopyPaste,
              qrCodeUrl: qrCodeUrlFor(this.deps.config, doc._id),
            },
          },
        ),
      );
      this.logger.info({ paymentId: doc._id, attempts: doc.chargeAttempts + 1 }, 'charge completed in the background');
    }
  }
}
