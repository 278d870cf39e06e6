import { randomInt, randomUUID } from 'node:crypto';
import { brlToCents } from '@pix/contracts';
import {
  listParameters,
  valorFrom,
  type Cob,
  type CobRequest,
  type Devolucao,
  type DevolucaoNatureza,
  type PixEntry,
  type PixList,
} from '@pix/api-pix';
import { dynamicBrCode } from './br-code';
import { newEndToEndId, newPspDevolucaoId } from './ids';
import { receivedBy, type SandboxBooks, type SandboxCharge, type SandboxPix } from './books';
import type { SandboxSettlements } from './settlements';
import { listedPix } from './payer';

export interface SandboxPspOptions {
  /** The receiver's name and city, written into every BR Code the PSP makes. */
  merchantName: string;
  merchantCity: string;
  /** Host (and path prefix) of the charges' payload locations. */
  locationHost: string;
}

/** Why the PSP refuses a refund, as API Pix answers it (404 PixNaoEncontrado, 400 DevolucaoOperacaoInvalida). */
export type RefundRefusal = 'no-such-pix' | 'more-than-the-pix';

/** Why the PSP makes no return of its own: no such Pix, more than the Pix, or nothing left of it to return. */
export type OwnReturnRefusal = 'no-such-pix' | 'more-than-the-pix' | 'nothing-left';

/** The motivo of a refund the merchant asked the sandbox to refuse (`sandbox fail-next-refund`). */
export const SANDBOX_REFUND_FAILURE = 'Devolução não realizada: recusa simulada pelo PSP sandbox a pedido da loja.';

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
    private readonly settlements: SandboxSettlements,
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

  /** GET /cob/{txid}: the charge, with the Pix it received. */
  async getCob(txid: string): Promise<Cob | null> {
    const charge = await this.books.findCharge(txid);
    if (!charge) return null;
    const pix = receivedBy(charge).map((p) => listedPix(charge, p));
    return pix.length ? { ...charge.cob, pix } : charge.cob;
  }

  /** GET /pix/{e2eid}: a received Pix, with where its analysis stands and its devoluções. */
  async getPix(endToEndId: string): Promise<PixEntry | null> {
    const found = await this.books.pixOf(endToEndId);
    if (!found) return null;
    const devolucoes = (await this.books.refundsOfPix(found.charge, endToEndId)).map((refund) => refund.devolucao);
    return { ...listedPix(found.charge, found.pix), ...(devolucoes.length && { devolucoes }) };
  }

  /**
   * GET /pix: the Pix received from `inicio` to `fim` (both inclusive), oldest first, a page at a
   * time (pages count from 0), each with where its analysis stands and its devoluções.
   */
  async listPix(window: { from: Date; to: Date }, page: number, perPage: number): Promise<PixList> {
    const { lines, charges, total } = await this.books.receivedPixPage(window, page, perPage);
    const refunds = await this.books.refundsOfPixes(lines.map((line) => line._id));
    const chargeOf = new Map(charges.map((charge) => [charge._id, charge]));
    const pix: PixEntry[] = [];
    for (const line of lines) {
      const charge = chargeOf.get(line.txid);
      const received = charge && receivedBy(charge).find((p) => p.endToEndId === line._id);
      if (!charge || !received) continue;
      const devolucoes = refunds.filter((r) => r.endToEndId === line._id).map((r) => r.devolucao);
      pix.push({ ...listedPix(charge, received), ...(devolucoes.length && { devolucoes }) });
    }
    return {
      parametros: listParameters(window, page, perPage, total),
      pix,
    };
  }

  /** PATCH /cob/{txid} to REMOVIDA_PELO_USUARIO_RECEBEDOR: only an active charge is removed. */
  removeCob(txid: string): Promise<'removed' | 'not_active' | 'not_found'> {
    return this.books.removeCharge(txid);
  }

  /**
   * PUT /pix/{e2eid}/devolucao/{id}: the refund as stored (this request's, or the one an earlier
   * request with the same id made), or why it is refused: no such Pix, or more than is left of it.
   * A new refund is taken EM_PROCESSAMENTO and settles a moment later (SandboxSettlements).
   */
  async putDevolucao(
    endToEndId: string,
    id: string,
    request: { valor: string; descricao?: string },
  ): Promise<{ devolucao: Devolucao; created: boolean } | { refused: RefundRefusal }> {
    const key = `${endToEndId}/${id}`;
    const repeated = await this.books.repeatRefund(key);
    if (repeated) return { devolucao: repeated.devolucao, created: false };
    const found = await this.books.pixOf(endToEndId);
    if (!found) return { refused: 'no-such-pix' };
    const amountCents = brlToCents(Number(request.valor)) ?? 0;
    const taken = (await this.books.refundsOfPix(found.charge, endToEndId))
      .filter((refund) => refund.devolucao.status !== 'NAO_REALIZADO')
      .reduce((sum, refund) => sum + refund.amountCents, 0);
    if (amountCents > found.pix.amountCents - taken) return { refused: 'more-than-the-pix' };
    const failure = await this.books.takeFailNextRefund(found.charge._id);
    const devolucao: Devolucao = {
      id,
      rtrId: newEndToEndId('D'),
      valor: request.valor,
      ...(request.descricao ? { descricao: request.descricao } : {}),
      horario: { solicitacao: new Date().toISOString() },
      status: 'EM_PROCESSAMENTO',
    };
    const { refund, created } = await this.books.putRefund(key, {
      endToEndId,
      devolucao,
      amountCents,
      pix: returnedPix(found),
      planned: failure ? { status: 'NAO_REALIZADO', motivo: failure } : { status: 'DEVOLVIDO', motivo: null },
      notified: false,
    });
    if (created) this.settlements.took(key);
    return { devolucao: refund.devolucao, created };
  }

  /**
   * The PSP returns a received Pix on its own, as it does when a MED claim is upheld: a devolução
   * under an id of its own with the natureza asked, of `amountCents` (what is left of the Pix when
   * absent), taken EM_PROCESSAMENTO and settled a moment later like any other (SandboxSettlements),
   * so the receiver hears of it through the same callback and listings. Up to the Pix's amount even
   * when the receiver's refunds took part of it: a MED return can race them, and the receiver must
   * cope with one larger than what it has left. Each call is a new devolução.
   */
  async returnOnItsOwn(
    endToEndId: string,
    asked: { amountCents?: number; natureza: DevolucaoNatureza; dropCallback: boolean },
  ): Promise<{ txid: string; devolucao: Devolucao } | { refused: OwnReturnRefusal }> {
    const found = await this.books.pixOf(endToEndId);
    if (!found) return { refused: 'no-such-pix' };
    const taken = (await this.books.refundsOfPix(found.charge, endToEndId))
      .filter((refund) => refund.devolucao.status !== 'NAO_REALIZADO')
      .reduce((sum, refund) => sum + refund.amountCents, 0);
    const amountCents = asked.amountCents ?? found.pix.amountCents - taken;
    if (amountCents > found.pix.amountCents) return { refused: 'more-than-the-pix' };
    if (amountCents <= 0) return { refused: 'nothing-left' };
    const id = newPspDevolucaoId();
    const key = `${endToEndId}/${id}`;
    const devolucao: Devolucao = {
      id,
      rtrId: newEndToEndId('D'),
      valor: valorFrom(amountCents),
      natureza: asked.natureza,
      horario: { solicitacao: new Date().toISOString() },
      status: 'EM_PROCESSAMENTO',
    };
    await this.books.putRefund(key, {
      endToEndId,
      devolucao,
      amountCents,
      pix: returnedPix(found),
      planned: { status: 'DEVOLVIDO', motivo: null },
      notified: false,
      ...(asked.dropCallback && { dropCallback: true }),
    });
    this.settlements.took(key);
    return { txid: found.charge._id, devolucao };
  }

  /** GET /pix/{e2eid}/devolucao/{id}. */
  async getDevolucao(endToEndId: string, id: string): Promise<Devolucao | null> {
    return (await this.books.findRefund(`${endToEndId}/${id}`))?.devolucao ?? null;
  }
}

/** The Pix a devolução returns, as the refund's callback and listings tell it beside the devolução. */
function returnedPix(found: { charge: SandboxCharge; pix: SandboxPix }) {
  return {
    endToEndId: found.pix.endToEndId,
    txid: found.charge._id,
    valor: valorFrom(found.pix.amountCents),
    horario: found.pix.paidAt.toISOString(),
  };
}
