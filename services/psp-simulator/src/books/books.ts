import mongoose, { Schema, type mongo } from 'mongoose';
import type { Logger } from '@pix/observability';
import { driverCollection, isDuplicateKey, syncIndexes } from '@pix/runtime';
import type { AnalysisState, Cob, Devolucao, PixEntry } from '@pix/api-pix';

/**
 * The sandbox PSP's books, in MongoDB so that they outlive a restart of the adapter: its charges
 * (cob), each with the Pix it received (the one that pays it, and any that came after it could no
 * longer be paid) and the end of that Pix's analysis, and its refunds (devoluções). The only module
 * that touches them (eslint keeps mongoose out of the rest). Each decision is one conditional update
 * on its charge or refund (a Pix only where there is none yet, an analysis only where there is none
 * yet, a refund settled only while it is processing), so racing or retried requests agree on one
 * outcome; every query is served by an index.
 */

/** The one Pix a charge received. */
export interface SandboxPix {
  endToEndId: string;
  amountCents: number;
  paidAt: Date;
  /** The PSP held this Pix for analysis (sandbox review) rather than confirming it. */
  held: boolean;
  /** The receiver acknowledged the callback; until then the PSP keeps calling. */
  notified: boolean;
  /**
   * The PSP loses this Pix's callback (sandbox pay with `dropCallback`): it is received and listed,
   * but the receiver hears of it only by reconciling (GET /pix, GET /cob).
   */
  dropCallback?: boolean;
}

/** A line of the PSP's ledger of received Pix, in the order GET /pix lists them. */
export interface ReceivedPixLine {
  _id: string; // endToEndId
  txid: string;
  paidAt: Date;
}

/** The end of a held Pix's analysis. */
export interface SandboxAnalysis {
  outcome: Exclude<AnalysisState, 'EM_ANALISE'>;
  decidedAt: Date;
  notified: boolean;
}

export interface SandboxCharge {
  _id: string; // txid
  cob: Cob;
  amountCents: number;
  expiresAt: Date;
  pix: SandboxPix | null;
  analysis: SandboxAnalysis | null;
  /** Pix paid after the charge could no longer be paid (sandbox pay with `late`), each a Pix of its own. */
  latePix?: SandboxPix[];
  /** The endToEndIds of every Pix of the charge, the way a refund finds its Pix. */
  pixIds?: string[];
  /**
   * The endToEndIds of the charge's Pix a refund was asked of, kept before the refund is stored: a
   * read of a Pix with none asked needs no read of the refunds. Absent on a charge stored before it
   * was kept, whose every read looks.
   */
  refundedPixIds?: string[];
  /** The motivo with which the PSP will refuse the next refund of the charge's Pix; null: none asked. */
  failNextRefund?: string | null;
}

/** How a refund the PSP took will settle, decided when it was taken. */
export interface PlannedSettlement {
  status: 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo: string | null;
}

export interface SandboxRefund {
  _id: string; // `${endToEndId}/${id}`
  endToEndId: string;
  devolucao: Devolucao;
  amountCents: number;
  /** How many times the refund was requested (a retry answers the same devolução). */
  requests: number;
  /** The Pix it returns, as the callback that tells of its settlement carries it. */
  pix: Pick<PixEntry, 'endToEndId' | 'txid' | 'valor' | 'horario'>;
  planned: PlannedSettlement;
  /** The receiver acknowledged the callback of its settlement; until then the PSP keeps calling. */
  notified: boolean;
  /**
   * The PSP loses the callback of its settlement (a MED return with `dropCallback`): it is settled
   * and listed, but the receiver hears of it only by reconciling or reading the Pix back.
   */
  dropCallback?: boolean;
}

const ChargeSchema = new Schema<SandboxCharge>(
  {
    _id: { type: String, required: true },
    cob: { type: Schema.Types.Mixed, required: true },
    amountCents: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
    pix: { type: Schema.Types.Mixed, default: null },
    analysis: { type: Schema.Types.Mixed, default: null },
    latePix: { type: Schema.Types.Mixed, default: undefined },
    pixIds: { type: [String], default: undefined },
    refundedPixIds: { type: [String], default: undefined },
    failNextRefund: { type: String, default: null },
  },
  { collection: 'sandbox_psp_cobs', versionKey: false, minimize: false },
);
// A refund finds its Pix by endToEndId (pix.endToEndId for charges paid before pixIds was kept); a
// restarted simulator resumes the callbacks not acknowledged. Each index holds only the charges that
// have its field (a Pix, an analysis, a late Pix), so a new charge writes no entry but its _id: an
// index entry is a share of an insert's cost on the engine, which the platform's database pays. An
// equality on the field implies the filter, so every query below still finds its index.
for (const field of ['pixIds', 'pix.endToEndId', 'pix.notified', 'analysis.notified', 'latePix.notified']) {
  ChargeSchema.index({ [field]: 1 }, { partialFilterExpression: { [field]: { $exists: true } } });
}

const ChargeModel = mongoose.model<SandboxCharge>('SandboxCharge', ChargeSchema);

/**
 * The driver's collection under the charges' model, for the commands of a charge and a pay (every
 * field they write is built whole here): mongoose's casting and query objects cost the simulator
 * more CPU than the engine's work for them (sandbox_psp_pix's, below, alike).
 */
function chargesCollection(): mongo.Collection<SandboxCharge> {
  return driverCollection(ChargeModel);
}

const ReceivedPixSchema = new Schema<ReceivedPixLine>(
  {
    _id: { type: String, required: true },
    txid: { type: String, required: true },
    paidAt: { type: Date, required: true },
  },
  { collection: 'sandbox_psp_pix', versionKey: false },
);
// GET /pix: the Pix received in a window, in a stable order, a page at a time.
ReceivedPixSchema.index({ paidAt: 1, _id: 1 });
const ReceivedPixModel = mongoose.model<ReceivedPixLine>('SandboxReceivedPix', ReceivedPixSchema);

function receivedPixCollection(): mongo.Collection<ReceivedPixLine> {
  return driverCollection(ReceivedPixModel);
}

const RefundModel = mongoose.model<SandboxRefund>(
  'SandboxRefund',
  new Schema<SandboxRefund>(
    {
      _id: { type: String, required: true },
      endToEndId: { type: String, required: true, index: true },
      devolucao: { type: Schema.Types.Mixed, required: true },
      amountCents: { type: Number, required: true },
      requests: { type: Number, required: true },
      pix: { type: Schema.Types.Mixed, required: true },
      planned: { type: Schema.Types.Mixed, required: true },
      notified: { type: Boolean, required: true, index: true },
      dropCallback: { type: Boolean },
    },
    { collection: 'sandbox_psp_refunds', versionKey: false },
  ),
);

/**
 * The sandbox PSP's books: the operations on its charges and refunds, each one command. Opened once
 * (indexes synced) and handed to the PSP (psp.ts) and the payer side (simulator.ts).
 */
export class SandboxBooks {
  /** Creates the schemas' indexes (syncIndexes keeps them as declared on every start). */
  static async open(logger?: Logger): Promise<SandboxBooks> {
    await syncIndexes([ChargeModel, RefundModel, ReceivedPixModel], logger);
    return new SandboxBooks();
  }

  findCharge(txid: string): Promise<SandboxCharge | null> {
    return chargesCollection().findOne({ _id: txid });
  }

  /**
   * Stores a charge under its txid unless one is there (PUT /cob is idempotent by txid): one insert,
   * built whole here (every field the schema declares) and sent through the driver, and a read of
   * the charge there only when the txid is taken (a repeated PUT). Returns the charge as stored, and
   * whether this call created it. An insert, not an upsert: DocumentDB's findAndModify looks the
   * txid up first and costs the engine about twice an insert.
   */
  async putCharge(
    txid: string,
    created: Pick<SandboxCharge, 'cob' | 'amountCents' | 'expiresAt'>,
  ): Promise<{ charge: SandboxCharge; created: boolean }> {
    const charge: SandboxCharge = {
      _id: txid,
      ...created,
      pix: null,
      analysis: null,
      // latePix and pixIds come with the first Pix ($push makes them): none is indexed before.
      refundedPixIds: [],
      failNextRefund: null,
    };
    try {
      await chargesCollection().insertOne(charge);
      return { charge, created: true };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const stored = await this.findCharge(txid);
    if (!stored) throw new Error(`charge ${txid} was refused as a duplicate but cannot be read`);
    return { charge: stored, created: false };
  }

  /**
   * Records the charge's Pix if it has none and has not expired, concluding the charge (GET /cob
   * shows it). The charge as it stands after: with this Pix, or with the one another request recorded
   * first; null when there is no such charge.
   */
  async recordPix(txid: string, pix: SandboxPix, now: Date): Promise<SandboxCharge | null> {
    const recorded = await chargesCollection().findOneAndUpdate(
      { _id: txid, pix: null, 'cob.status': 'ATIVA', expiresAt: { $gt: now } },
      { $set: { pix, 'cob.status': 'CONCLUIDA' }, $push: { pixIds: pix.endToEndId } },
      { returnDocument: 'after' },
    );
    return recorded ?? this.findCharge(txid);
  }

  /**
   * Records a Pix paid to a charge whatever its state (paid, expired, removed): a payer's bank may
   * still send one. The charge as it stands after; null when there is no such charge.
   */
  async recordLatePix(txid: string, pix: SandboxPix): Promise<SandboxCharge | null> {
    return ChargeModel.findOneAndUpdate(
      { _id: txid },
      { $push: { latePix: pix, pixIds: pix.endToEndId } },
      { new: true, lean: true },
    ) as Promise<SandboxCharge | null>;
  }

  /**
   * PATCH /cob (REMOVIDA_PELO_USUARIO_RECEBEDOR): only an active charge is removed; then no Pix can
   * pay it. What was found: removed now, not active (paid or removed before), or no such charge.
   */
  async removeCharge(txid: string): Promise<'removed' | 'not_active' | 'not_found'> {
    const removed = await ChargeModel.updateOne(
      { _id: txid, 'cob.status': 'ATIVA' },
      { $set: { 'cob.status': 'REMOVIDA_PELO_USUARIO_RECEBEDOR' } },
    );
    if (removed.modifiedCount === 1) return 'removed';
    return (await this.findCharge(txid)) ? 'not_active' : 'not_found';
  }

  /** The PSP will refuse the next refund of the charge's Pix with this motivo; false: no such charge. */
  async failNextRefund(txid: string, motivo: string): Promise<boolean> {
    const result = await ChargeModel.updateOne({ _id: txid }, { $set: { failNextRefund: motivo } });
    return result.matchedCount === 1;
  }

  /** Takes the charge's "refuse the next refund" motivo, if one is set: one refund takes it. */
  async takeFailNextRefund(txid: string): Promise<string | null> {
    const before = await ChargeModel.findOneAndUpdate(
      { _id: txid, failNextRefund: { $ne: null } },
      { $set: { failNextRefund: null } },
      { lean: true },
    );
    return (before as SandboxCharge | null)?.failNextRefund ?? null;
  }

  /** Records the end of the held Pix's analysis if none is recorded; the charge as it stands after. */
  async recordAnalysis(txid: string, analysis: SandboxAnalysis): Promise<SandboxCharge | null> {
    const recorded = await ChargeModel.findOneAndUpdate(
      { _id: txid, 'pix.held': true, analysis: null },
      { $set: { analysis } },
      { new: true, lean: true },
    );
    return (recorded as SandboxCharge | null) ?? this.findCharge(txid);
  }

  /** The receiver acknowledged the callback of the charge's Pix, or of its analysis. */
  async markNotified(txid: string, what: 'pix' | 'analysis'): Promise<void> {
    await chargesCollection().updateOne({ _id: txid }, { $set: { [`${what}.notified`]: true } });
  }

  /** The receiver acknowledged the callback of a late Pix of the charge. */
  async markLateNotified(txid: string, endToEndId: string): Promise<void> {
    await ChargeModel.updateOne(
      { _id: txid, 'latePix.endToEndId': endToEndId },
      { $set: { 'latePix.$.notified': true } },
    );
  }

  /** Charges with a callback the receiver has not acknowledged: of their Pix, of its analysis, of a late Pix. */
  chargesOwingCallbacks(): Promise<{ pix: SandboxCharge[]; analysis: SandboxCharge[]; late: SandboxCharge[] }> {
    return Promise.all([
      ChargeModel.find({ 'pix.notified': false }).lean<SandboxCharge[]>().exec(),
      ChargeModel.find({ 'analysis.notified': false }).lean<SandboxCharge[]>().exec(),
      ChargeModel.find({ 'latePix.notified': false }).lean<SandboxCharge[]>().exec(),
    ]).then(([pix, analysis, late]) => ({ pix, analysis, late }));
  }

  /**
   * Writes a Pix the PSP received into its ledger (GET /pix reads it), once however often it is
   * written: before its callback, so a Pix whose callback is lost is still listed.
   */
  async ledgerPix(txid: string, pix: SandboxPix): Promise<void> {
    await receivedPixCollection().updateOne(
      { _id: pix.endToEndId },
      { $setOnInsert: { txid, paidAt: pix.paidAt } },
      { upsert: true },
    );
  }

  /**
   * One page of the ledger's Pix received from `from` to `to` (inclusive), oldest first, with the
   * charges they paid, and how many there are in the window: an index range, three commands.
   */
  async receivedPixPage(
    window: { from: Date; to: Date },
    page: number,
    perPage: number,
  ): Promise<{ lines: ReceivedPixLine[]; charges: SandboxCharge[]; total: number }> {
    const range = { paidAt: { $gte: window.from, $lte: window.to } };
    const [total, lines] = await Promise.all([
      ReceivedPixModel.countDocuments(range).exec(),
      ReceivedPixModel.find(range)
        .sort({ paidAt: 1, _id: 1 })
        .skip(page * perPage)
        .limit(perPage)
        .lean<ReceivedPixLine[]>()
        .exec(),
    ]);
    const txids = [...new Set(lines.map((line) => line.txid))];
    const charges = txids.length
      ? await ChargeModel.find({ _id: { $in: txids } })
          .lean<SandboxCharge[]>()
          .exec()
      : [];
    return { lines, charges, total };
  }

  /** The refunds of these Pix (a page of the ledger's): one command. */
  refundsOfPixes(endToEndIds: string[]): Promise<SandboxRefund[]> {
    if (endToEndIds.length === 0) return Promise.resolve([]);
    return RefundModel.find({ endToEndId: { $in: endToEndIds } })
      .lean<SandboxRefund[]>()
      .exec();
  }

  /** The charge that received the Pix `endToEndId`, and that Pix. */
  async pixOf(endToEndId: string): Promise<{ charge: SandboxCharge; pix: SandboxPix } | null> {
    const charge =
      (await chargesCollection().findOne({ pixIds: { $eq: endToEndId } })) ??
      (await chargesCollection().findOne({ 'pix.endToEndId': { $eq: endToEndId } }));
    const pix = charge && receivedBy(charge).find((p) => p.endToEndId === endToEndId);
    return charge && pix ? { charge, pix } : null;
  }

  /**
   * Stores a refund under its key unless one is there (PUT /devolucao is idempotent by id), counting
   * the request: two commands, its Pix first marked on its charge as refunded (refundsOfPix reads
   * the refunds of a marked Pix only). Returns the refund as stored, and whether this call created it.
   */
  async putRefund(
    key: string,
    created: Omit<SandboxRefund, '_id' | 'requests'>,
  ): Promise<{ refund: SandboxRefund; created: boolean }> {
    // A charge stored before the marks were kept stays without them: its reads look every time.
    await chargesCollection().updateOne(
      { _id: created.pix.txid, refundedPixIds: { $exists: true } },
      { $addToSet: { refundedPixIds: created.endToEndId } },
    );
    const result = await RefundModel.findOneAndUpdate(
      { _id: key },
      { $setOnInsert: created, $inc: { requests: 1 } },
      { upsert: true, new: true, includeResultMetadata: true, lean: true },
    );
    return { refund: result.value as SandboxRefund, created: !result.lastErrorObject?.updatedExisting };
  }

  /** A PUT of a refund already there: counted (a retry answers the same devolução); null when there is none. */
  repeatRefund(key: string): Promise<SandboxRefund | null> {
    return RefundModel.findOneAndUpdate(
      { _id: key },
      { $inc: { requests: 1 } },
      { new: true, lean: true },
    ) as Promise<SandboxRefund | null>;
  }

  findRefund(key: string): Promise<SandboxRefund | null> {
    return RefundModel.findById(key).lean<SandboxRefund>().exec();
  }

  /**
   * The refunds of a Pix of `charge` (a Pix has a few): what is left of it to refund. None, without
   * a command, when the charge as read has no refund asked of it.
   */
  refundsOfPix(charge: Pick<SandboxCharge, 'refundedPixIds'>, endToEndId: string): Promise<SandboxRefund[]> {
    if (charge.refundedPixIds && !charge.refundedPixIds.includes(endToEndId)) return Promise.resolve([]);
    return RefundModel.find({ endToEndId: { $eq: endToEndId } })
      .lean<SandboxRefund[]>()
      .exec();
  }

  /** Settles a refund still processing as it was planned; the refund as it stands after (null: none). */
  async settleRefund(key: string, now: Date): Promise<SandboxRefund | null> {
    const refund = await this.findRefund(key);
    if (!refund || refund.devolucao.status !== 'EM_PROCESSAMENTO') return refund;
    const { status, motivo } = refund.planned;
    const settled = await RefundModel.findOneAndUpdate(
      { _id: key, 'devolucao.status': 'EM_PROCESSAMENTO' },
      {
        $set: {
          'devolucao.status': status,
          'devolucao.horario.liquidacao': now.toISOString(),
          ...(motivo ? { 'devolucao.motivo': motivo } : {}),
        },
      },
      { new: true, lean: true },
    );
    return (settled as SandboxRefund | null) ?? this.findRefund(key);
  }

  /** The receiver acknowledged the callback of the refund's settlement. */
  async markRefundNotified(key: string): Promise<void> {
    await RefundModel.updateOne({ _id: key }, { $set: { notified: true } });
  }

  /** Refunds whose settlement the receiver has not acknowledged (still processing, or settled and not told). */
  refundsOwingCallbacks(): Promise<SandboxRefund[]> {
    return RefundModel.find({ notified: false }).lean<SandboxRefund[]>().exec();
  }
}

/** Every Pix a charge received: the one that paid it, and any that came after it could not be paid. */
export function receivedBy(charge: SandboxCharge): SandboxPix[] {
  return [...(charge.pix ? [charge.pix] : []), ...(charge.latePix ?? [])];
}
