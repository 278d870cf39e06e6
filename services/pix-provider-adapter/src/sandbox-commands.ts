import { centsToBrl, DomainError, txidFor } from '@pix/contracts';
import { SANDBOX_REFUND_FAILURE, type SandboxBooks, type SandboxPayer } from '@pix/sandbox-psp';

/**
 * `sandbox pay | review | clear | reject | fail-next-refund` by payment id, for the admin CLI and the
 * gateway's public sandbox routes alike: the sandbox PSP knows the payment's charge by its txid.
 */
export class SandboxCommands {
  constructor(
    private readonly payer: SandboxPayer,
    private readonly books: SandboxBooks,
  ) {}

  async pay(paymentId: string, amountCents: number | undefined, late: boolean, dropCallback: boolean) {
    const { _id, pix } = late
      ? await this.payer.payLate(txidFor(paymentId), amountCents, dropCallback)
      : await this.payer.pay(txidFor(paymentId), amountCents, false, dropCallback);
    return { paymentId, txid: _id, endToEndId: pix.endToEndId, amount: centsToBrl(pix.amountCents) };
  }

  async review(paymentId: string) {
    const { _id, pix } = await this.payer.pay(txidFor(paymentId), undefined, true);
    return { paymentId, txid: _id, endToEndId: pix.endToEndId, analysis: 'review' as const };
  }

  async clear(paymentId: string) {
    const { _id, pix } = await this.payer.endAnalysis(txidFor(paymentId), 'LIBERADO');
    return { paymentId, txid: _id, endToEndId: pix.endToEndId, analysis: 'cleared' as const };
  }

  async reject(paymentId: string) {
    const { _id, pix } = await this.payer.endAnalysis(txidFor(paymentId), 'REJEITADO');
    return { paymentId, txid: _id, endToEndId: pix.endToEndId, analysis: 'rejected' as const };
  }

  /** The PSP will settle the payment's next refund as not done (NAO_REALIZADO). */
  async failNextRefund(paymentId: string) {
    const txid = txidFor(paymentId);
    if (!(await this.books.failNextRefund(txid, SANDBOX_REFUND_FAILURE))) throw new DomainError('charge_not_found');
    return { paymentId, txid, failureReason: SANDBOX_REFUND_FAILURE };
  }
}
