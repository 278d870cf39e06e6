import { centsToBrl, txidFor } from '@pix/contracts';
import type { SandboxPayer } from './sandbox-psp/simulator';

/**
 * The admin CLI's `sandbox pay | review | clear | reject`, by payment id: the sandbox PSP knows the
 * payment's charge by its txid.
 */
export class SandboxCommands {
  constructor(private readonly payer: SandboxPayer) {}

  async pay(paymentId: string, amountCents: number | undefined) {
    const pix = await this.payer.pay(txidFor(paymentId), amountCents, false);
    return { paymentId, txid: pix.txid, endToEndId: pix._id, amount: centsToBrl(pix.amountCents) };
  }

  async review(paymentId: string) {
    const pix = await this.payer.pay(txidFor(paymentId), undefined, true);
    return { paymentId, txid: pix.txid, endToEndId: pix._id, analysis: 'review' as const };
  }

  async clear(paymentId: string) {
    const pix = await this.payer.endAnalysis(txidFor(paymentId), 'LIBERADO');
    return { paymentId, txid: pix.txid, endToEndId: pix._id, analysis: 'cleared' as const };
  }

  async reject(paymentId: string) {
    const pix = await this.payer.endAnalysis(txidFor(paymentId), 'REJEITADO');
    return { paymentId, txid: pix.txid, endToEndId: pix._id, analysis: 'rejected' as const };
  }
}
