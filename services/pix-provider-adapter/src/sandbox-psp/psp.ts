import { randomInt, randomUUID } from 'node:crypto';
import { brlToCents } from '@pix/contracts';
import type { Cob, CobRequest, Devolucao } from '../api-pix/wire';
import { dynamicBrCode } from '../br-code';
import { newEndToEndId } from './ids';
import type { SandboxBooks } from './books';

export interface SandboxPspOptions {
  /** The receiver's name and city, written into every BR Code the PSP makes. */
  merchantName: string;
  merchantCity: string;
  /** Host (and path prefix) of the charges' payload locations. */
  locationHost: string;
}

/** Why the PSP refuses a refund, as API Pix answers it (404 PixNaoEncontrado, 400 DevolucaoOperacaoInvalida). */
export type RefundRefusal = 'no-such-pix' | 'more-than-the-pix';

/**
 * The sandbox PSP's receiver side, as API Pix defines it: charges (cob) opened by txid and refunds
 * (devoluções) of a received Pix by id, each idempotent the way a PSP's PUT is (a retry answers
 * what the first request made). It keeps its books in MongoDB (books.ts), so a charge outlives the
 * replica that opened it. The adapter calls it in process (SandboxProvider); it is the same PSP a
 * client of API Pix meets over HTTP.
 */
export class SandboxPsp {
  constructor(
    private readonly books: SandboxBooks,
    private readonly options: SandboxPspOptions,
  ) {}

  /** PUT /cob/{txid}: the charge as stored (this request's, or the one a previous request opened). */
  async putCob(txid: string, request: CobRequest): Promise<{ cob: Cob; created: boolean }> {
    const location = `${this.options.locationHost}/qr/v2/${randomUUID().replace(/-/g, '')}`;
    const now = new Date();
    const cob: Cob = {
      txid,
      revisao: 0,
      status: 'ATIVA',
      calendario: { criacao: now.toISOString(), expiracao: request.calendario.expiracao },
      loc: { id: randomInt(1, 2 ** 31), location, tipoCob: 'cob' },
      location,
      valor: request.valor,
      chave: request.chave,
      ...(request.solicitacaoPagador ? { solicitacaoPagador: request.solicitacaoPagador } : {}),
      pixCopiaECola: dynamicBrCode({
        merchantName: this.options.merchantName,
        merchantCity: this.options.merchantCity,
        location,
      }),
    };
    const { charge, created } = await this.books.putCharge(txid, {
      cob,
      amountCents: brlToCents(Number(request.valor.original)) ?? 0,
      expiresAt: new Date(now.getTime() + request.calendario.expiracao * 1000),
    });
    return { cob: charge.cob, created };
  }

  /** GET /cob/{txid}. */
  async getCob(txid: string): Promise<Cob | null> {
    return (await this.books.findCharge(txid))?.cob ?? null;
  }

  /** PUT /pix/{e2eid}/devolucao/{id}: the refund as stored, or why it is refused. */
  async putDevolucao(
    endToEndId: string,
    id: string,
    valor: string,
  ): Promise<{ devolucao: Devolucao; created: boolean } | { refused: RefundRefusal }> {
    const pix = (await this.books.chargeOfPix(endToEndId))?.pix;
    if (!pix) return { refused: 'no-such-pix' };
    const amountCents = brlToCents(Number(valor)) ?? 0;
    if (amountCents > pix.amountCents) return { refused: 'more-than-the-pix' };
    const now = new Date().toISOString();
    const devolucao: Devolucao = {
      id,
      rtrId: newEndToEndId('D'),
      valor,
      horario: { solicitacao: now, liquidacao: now },
      status: 'DEVOLVIDO',
    };
    return this.books.putRefund(`${endToEndId}/${id}`, { endToEndId, devolucao, amountCents });
  }

  /** GET /pix/{e2eid}/devolucao/{id}. */
  getDevolucao(endToEndId: string, id: string): Promise<Devolucao | null> {
    return this.books.findRefund(`${endToEndId}/${id}`);
  }
}
