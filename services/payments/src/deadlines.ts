import type { NatsConnection } from '@nats-io/transport-node';
import { CreateRefundReplySchema, refundIdFor, Subjects, type CreateRefundReply } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import type { Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import type { Config } from './config';
import { PaymentModel, type PaymentDoc, type RefundRecord } from './model';
import { withPaymentLock } from './payment-lock';
import { transition } from './transitions';

type DueDoc = Pick<
  PaymentDoc,
  '_id' | 'status' | 'deadlineAt' | 'paidEndToEndId' | 'paidAmountCents' | 'refund' | 'refundReason'
>;

const DUE_FIELDS = { status: 1, deadlineAt: 1, paidEndToEndId: 1, paidAmountCents: 1, refund: 1, refundReason: 1 };

/**
 * Runs the deadlines stored with the payments: a pending payment whose charge expired becomes
 * not_approved; a payment in review past REVIEW_TIMEOUT (or whose analysis was rejected) has its
 * paid amount refunded at the PSP and becomes not_approved.
 *
 * Any number of replicas run this (see claim()). Every step after the claim is itself idempotent
 * (conditional transitions, a refund id fixed per payment), so a taken-over claim finishes the work
 * without doing it twice.
 */
export class DeadlineRunner {
  private readonly task: Periodic;

  constructor(private readonly deps: { nc: NatsConnection; config: Config; logger: Logger; onChange: () => void }) {
    this.task = new Periodic(
      () => this.pass(),
      deps.config.DEADLINE_POLL_INTERVAL,
      (err) => deps.logger.error({ err, task: 'deadlines' }, 'background pass failed'),
    );
  }

  start(): void {
    this.task.start();
  }

  poke(): void {
    this.task.poke();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  private async pass(): Promise<void> {
    const due = await PaymentModel.find({ deadlineAt: { $lte: new Date() } })
      .sort({ deadlineAt: 1 })
      .limit(50)
      .select(DUE_FIELDS)
      .lean<DueDoc[]>();
    for (const seen of due) {
      if (!(await this.claim(seen))) continue;
      // Act on the payment as it is now, not as the scan saw it.
      const doc = await PaymentModel.findById(seen._id).select(DUE_FIELDS).lean<DueDoc>();
      if (!doc) continue;
      if (doc.status === 'pending') await this.expire(doc);
      else if (doc.status === 'review') await this.refund(doc);
      else {
        await withPaymentLock(doc._id, () =>
          PaymentModel.updateOne({ _id: doc._id, status: doc.status }, { $set: { deadlineAt: null } }),
        );
      }
    }
  }

  /**
   * A replica claims a due deadline by moving it one lease into the future, conditionally on the
   * value it read and under the payment's lock, so exactly one replica wins it; if the winner dies,
   * the deadline falls due again when the lease ends and another replica takes it over.
   */
  private async claim(doc: DueDoc): Promise<boolean> {
    const claimed = await withPaymentLock(doc._id, () =>
      PaymentModel.updateOne(
        { _id: doc._id, status: doc.status, deadlineAt: doc.deadlineAt },
        { $set: { deadlineAt: new Date(Date.now() + this.deps.config.DEADLINE_LEASE) } },
      ),
    );
    return claimed.modifiedCount === 1;
  }

  private async expire(doc: DueDoc): Promise<void> {
    const result = await transition(doc._id, 'pending', 'not_approved');
    if (result.changed) {
      this.deps.logger.info({ paymentId: doc._id }, 'charge expired unpaid: payment not approved');
      this.deps.onChange();
    }
  }

  private async refund(doc: DueDoc): Promise<void> {
    const { logger } = this.deps;
    if (!doc.paidEndToEndId || !doc.paidAmountCents) {
      logger.error({ paymentId: doc._id }, 'payment in review without a received Pix: nothing to refund');
      return;
    }
    const record: RefundRecord = doc.refund ?? {
      id: refundIdFor(doc._id),
      reason: doc.refundReason ?? 'review_timeout',
      requestedAt: new Date(),
      status: null,
      rtrId: null,
    };
    if (!doc.refund) {
      // Recorded before asking the PSP: from here on the analysis can no longer approve the payment.
      const recorded = await withPaymentLock(doc._id, () =>
        PaymentModel.updateOne({ _id: doc._id, status: 'review', refund: null }, { $set: { refund: record } }),
      );
      if (recorded.modifiedCount !== 1) return;
    }
    let reply: CreateRefundReply;
    try {
      reply = await callRpc(
        this.deps.nc,
        Subjects.pixRefundsCreate,
        { refundId: record.id, endToEndId: doc.paidEndToEndId, amountCents: doc.paidAmountCents },
        CreateRefundReplySchema,
        this.deps.config.REFUND_TIMEOUT,
      );
    } catch (err) {
      logger.warn({ err, paymentId: doc._id, refundId: record.id }, 'refund request failed; retried after the lease');
      return;
    }
    const outcome: RefundRecord = { ...record, status: reply.status, rtrId: reply.rtrId };
    if (reply.status === 'NAO_REALIZADO') {
      await withPaymentLock(doc._id, () =>
        PaymentModel.updateOne({ _id: doc._id, status: 'review' }, { $set: { refund: outcome, deadlineAt: null } }),
      );
      logger.error(
        { paymentId: doc._id, refundId: record.id },
        'the PSP refused the refund; the payment needs an operator',
      );
      return;
    }
    const result = await transition(doc._id, 'review', 'not_approved', { refund: outcome });
    if (result.changed) {
      logger.info({ paymentId: doc._id, refund: outcome }, 'paid amount refunded: payment not approved');
      this.deps.onChange();
    }
  }
}
