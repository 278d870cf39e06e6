import mongoose, { Schema } from 'mongoose';
import type { Logger } from '@pix/observability';
import { syncIndexes } from '@pix/runtime';
import {
  listParameters,
  valorFrom,
  type DefesaRequest,
  type Infracao,
  type InfracaoDecision,
  type InfracaoList,
  type InfracaoStatus,
} from '@pix/api-pix';
import { newInfractionId } from './ids';
import type { SandboxBooks } from './books';

/** An infraction the sandbox PSP holds (Efí's words, its money in cents). */
export interface SandboxInfraction {
  _id: string; // idInfracao
  endToEndId: string;
  amountCents: number;
  tipoSituacao: string;
  motivo: string;
  status: InfracaoStatus;
  prazo: Date;
  criacao: Date;
  /** Its last change: the listing's window reads it, so a reader with a cursor sees each change. */
  atualizacao: Date;
  defesa: (DefesaRequest & { horario: Date }) | null;
}

const InfractionModel = mongoose.model<SandboxInfraction>(
  'SandboxInfraction',
  new Schema<SandboxInfraction>(
    {
      _id: { type: String, required: true },
      endToEndId: { type: String, required: true },
      amountCents: { type: Number, required: true },
      tipoSituacao: { type: String, required: true },
      motivo: { type: String, required: true },
      status: { type: String, required: true },
      prazo: { type: Date, required: true },
      criacao: { type: Date, required: true },
      atualizacao: { type: Date, required: true },
      defesa: { type: Schema.Types.Mixed, default: null },
    },
    { collection: 'sandbox_psp_infractions', versionKey: false, minimize: false },
  ).index({ atualizacao: 1, _id: 1 }),
);

/** Why an infraction is not opened: no such Pix, or more than the Pix. */
export type InfractionRefusal = 'no-such-pix' | 'more-than-the-pix';

/** Why a defence is refused: no such infraction, answered or decided already, or its prazo passed. */
export type DefenseRefusal = 'not-found' | 'not-open' | 'deadline-passed';

/** An infraction as Efí answers it. */
export function infracaoOf(infraction: SandboxInfraction): Infracao {
  return {
    idInfracao: infraction._id,
    endToEndId: infraction.endToEndId,
    valor: valorFrom(infraction.amountCents),
    tipoSituacao: infraction.tipoSituacao,
    motivo: infraction.motivo,
    status: infraction.status,
    prazo: infraction.prazo.toISOString(),
    horario: { criacao: infraction.criacao.toISOString(), atualizacao: infraction.atualizacao.toISOString() },
    ...(infraction.defesa && {
      defesa: {
        analise: infraction.defesa.analise,
        justificativa: infraction.defesa.justificativa,
        horario: infraction.defesa.horario.toISOString(),
      },
    }),
  };
}

/**
 * The sandbox PSP's infractions (MED), as Efí exposes them to its receivers: the payer's PSP files
 * one against a received Pix (the back office plays it), the receiver lists them by when they last
 * changed and answers one once before its prazo, and the PSP decides it. Each change is one
 * conditional update, so a retried or racing request agrees on one outcome; every query is served
 * by an index.
 */
export class SandboxInfractions {
  static async open(books: SandboxBooks, logger?: Logger): Promise<SandboxInfractions> {
    await syncIndexes([InfractionModel], logger);
    return new SandboxInfractions(books);
  }

  private constructor(private readonly books: SandboxBooks) {}

  /** Files an infraction against the Pix `endToEndId`, of `amountCents` (the whole Pix when absent). */
  async file(
    endToEndId: string,
    asked: { amountCents?: number; motivo: string; tipoSituacao: string; prazo: Date },
    now = new Date(),
  ): Promise<Infracao | { refused: InfractionRefusal }> {
    const found = await this.books.pixOf(endToEndId);
    if (!found) return { refused: 'no-such-pix' };
    const amountCents = asked.amountCents ?? found.pix.amountCents;
    if (amountCents > found.pix.amountCents) return { refused: 'more-than-the-pix' };
    const infraction: SandboxInfraction = {
      _id: newInfractionId(),
      endToEndId,
      amountCents,
      tipoSituacao: asked.tipoSituacao,
      motivo: asked.motivo,
      status: 'ABERTA',
      prazo: asked.prazo,
      criacao: now,
      atualizacao: now,
      defesa: null,
    };
    await InfractionModel.create(infraction);
    return infracaoOf(infraction);
  }

  async find(id: string): Promise<Infracao | null> {
    const infraction = await InfractionModel.findById(id).lean<SandboxInfraction>().exec();
    return infraction ? infracaoOf(infraction) : null;
  }

  /** POST …/defesa: taken once, while the infraction is open and before its prazo. */
  async defend(id: string, defesa: DefesaRequest, now = new Date()): Promise<Infracao | { refused: DefenseRefusal }> {
    const defended = await InfractionModel.findOneAndUpdate(
      { _id: id, status: 'ABERTA', prazo: { $gt: now } },
      { $set: { status: 'EM_DEFESA', defesa: { ...defesa, horario: now }, atualizacao: now } },
      { new: true, lean: true },
    );
    if (defended) return infracaoOf(defended as SandboxInfraction);
    const infraction = await InfractionModel.findById(id).lean<SandboxInfraction>().exec();
    if (!infraction) return { refused: 'not-found' };
    return { refused: infraction.status === 'ABERTA' ? 'deadline-passed' : 'not-open' };
  }

  /** The PSP decides an open (or answered) infraction; one decided already keeps its decision. */
  async decide(id: string, status: InfracaoDecision, now = new Date()): Promise<Infracao | null> {
    const decided = await InfractionModel.findOneAndUpdate(
      { _id: id, status: { $in: ['ABERTA', 'EM_DEFESA'] } },
      { $set: { status, atualizacao: now } },
      { new: true, lean: true },
    );
    return decided ? infracaoOf(decided as SandboxInfraction) : this.find(id);
  }

  /** GET /v2/gn/infracoes: those that changed from `from` to `to` (inclusive), oldest change first, a page at a time. */
  async list(window: { from: Date; to: Date }, page: number, perPage: number): Promise<InfracaoList> {
    const range = { atualizacao: { $gte: window.from, $lte: window.to } };
    const [total, infractions] = await Promise.all([
      InfractionModel.countDocuments(range).exec(),
      InfractionModel.find(range)
        .sort({ atualizacao: 1, _id: 1 })
        .skip(page * perPage)
        .limit(perPage)
        .lean<SandboxInfraction[]>()
        .exec(),
    ]);
    return {
      parametros: listParameters(window, page, perPage, total),
      infracoes: infractions.map(infracaoOf),
    };
  }
}
