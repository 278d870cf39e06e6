import type { CreateChargeReply, CreateRefundReply } from '@pix/contracts';
import { chargeFromCob, cobRequestFrom, refundFromDevolucao, valorFrom } from '../api-pix/transformers';
import {
  counted,
  type CreateChargeInput,
  type OnPspRequest,
  type PixProvider,
  type RefundInput,
} from '../providers/provider';
import type { SandboxPsp } from './psp';

/**
 * The provider port over the sandbox PSP, in process: the same API Pix requests and answers as a
 * real PSP's (the same transformers read them), without an HTTP round trip to a PSP that runs in
 * this very process. That round trip (a request through got, an express app, and the sandbox's
 * callbacks back the same way) was the adapter's largest cost per payment.
 */
export class SandboxProvider implements PixProvider {
  constructor(
    private readonly psp: SandboxPsp,
    /** The receiver's Pix key written into every charge. */
    private readonly pixKey: string,
    /** Called once per operation with its outcome (psp_requests_total, as for a real PSP). */
    private readonly onRequest: OnPspRequest,
  ) {}

  createCharge(input: CreateChargeInput): Promise<CreateChargeReply> {
    return counted(this.onRequest, 'create_charge', async () => {
      const { cob } = await this.psp.putCob(input.txid, cobRequestFrom(input, this.pixKey));
      return chargeFromCob(cob);
    });
  }

  refund(input: RefundInput): Promise<CreateRefundReply> {
    return counted(this.onRequest, 'refund', async () => {
      const answer = await this.psp.putDevolucao(input.endToEndId, input.refundId, valorFrom(input.amountCents));
      if ('refused' in answer) throw new Error(`the sandbox PSP refused refund ${input.refundId}: ${answer.refused}`);
      return refundFromDevolucao(answer.devolucao);
    });
  }
}
