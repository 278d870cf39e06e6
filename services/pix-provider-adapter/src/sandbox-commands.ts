import { centsToBrl, txidFor } from '@pix/contracts';
import type { SandboxPayer } from './sandbox-psp/simulator';

/**
 * `sandbox pay | review | clear | reject` by payment id, for the admin CLI and the gateway's public
 * sandbox routes alike: the sandbox PSP knows the payment's charge by its txid.
 */
export class SandboxCommands {
  constructor(private readonly payer: SandboxPayer) {}

  async pay(paymentId: string, amountCents: number | undefined) {
    const { _id, pix } = await this.payer.pay(txidFor(paymentId), amountCents, false);
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
}
