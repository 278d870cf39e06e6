import type { CreateChargeReply } from '@pix/contracts';
import {
  chargeAtPspFrom,
  chargeFromCob,
  cobRequestFrom,
  devolucaoRequestFrom,
  refundFromDevolucao,
} from '../api-pix/transformers';
import {
  counted,
  PspRefusal,
  type ChargeAtPsp,
  type ChargeRemoval,
  type CreateChargeInput,
  type OnPspRequest,
  type PixProvider,
  type ReceivedPixPage,
  type RefundAtPsp,
  type RefundInput,
} from '../providers/provider';
import type { ReceivedPix } from '@pix/api-pix';
import type { SandboxPsp } from '@pix/sandbox-psp';

/** API Pix's answers to the refusals of a devolução (tests/service/api-pix-psp.ts serves the same). */
const REFUSALS = {
  'no-such-pix': new PspRefusal(404, 'PixNaoEncontrado: nenhum Pix com este endToEndId'),
  'more-than-the-pix': new PspRefusal(400, 'DevolucaoOperacaoInvalida: valor acima do disponível para devolução'),
} as const;

/** Pix per page of GET /pix, as API Pix's default. */
const SANDBOX_PIX_PAGE_SIZE = 100;

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

  sendRefund(input: RefundInput): Promise<RefundAtPsp> {
    return counted(this.onRequest, 'refund', async () => {
      const answer = await this.psp.putDevolucao(input.endToEndId, input.pspRefundId, devolucaoRequestFrom(input));
      if ('refused' in answer) throw REFUSALS[answer.refused];
      return refundFromDevolucao(answer.devolucao);
    });
  }

  readRefund(endToEndId: string, pspRefundId: string): Promise<RefundAtPsp | null> {
    return counted(this.onRequest, 'read_refund', async () => {
      const devolucao = await this.psp.getDevolucao(endToEndId, pspRefundId);
      return devolucao && refundFromDevolucao(devolucao);
    });
  }

  removeCharge(txid: string): Promise<ChargeRemoval> {
    return counted(this.onRequest, 'remove_charge', () => this.psp.removeCob(txid));
  }

  readCharge(txid: string): Promise<ChargeAtPsp | null> {
    return counted(this.onRequest, 'read_charge', async () => {
      const cob = await this.psp.getCob(txid);
      return cob && chargeAtPspFrom(cob);
    });
  }

  readPix(endToEndId: string): Promise<ReceivedPix | null> {
    return counted(this.onRequest, 'read_pix', () => this.psp.getPix(endToEndId));
  }

  listReceivedPix(window: { from: Date; to: Date }, page: number): Promise<ReceivedPixPage> {
    return counted(this.onRequest, 'list_pix', async () => {
      const list = await this.psp.listPix(window, page, SANDBOX_PIX_PAGE_SIZE);
      return { pix: list.pix, pages: list.parametros.paginacao.quantidadeDePaginas };
    });
  }
}
