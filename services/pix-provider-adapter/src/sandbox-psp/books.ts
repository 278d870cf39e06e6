import mongoose, { Schema } from 'mongoose';
import type { Logger } from '@pix/observability';
import { syncIndexes } from '@pix/runtime';
import type { AnalysisState, Cob, Devolucao } from '../api-pix/wire';

/**
 * The sandbox PSP's books, in MongoDB so that they outlive a restart of the adapter: its charges
 * (cob), each with the one Pix it received and the end of that Pix's analysis, and its refunds
 * (devoluções). The only module that touches them (eslint keeps mongoose out of the rest). Each decision is one conditional update on its
 * charge (a Pix only where there is none yet, an analysis only where there is none yet), so racing
 * or retried requests agree on one Pix and one outcome; every query is served by an index.
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
}

interface SandboxRefund {
  _id: string; // `${endToEndId}/${id}`
  endToEndId: string;
  devolucao: Devolucao;
  amountCents: number;
  /** How many times the refund was requested (a retry answers the same devolução). */
  requests: number;
}

const ChargeSchema = new Schema<SandboxCharge>(
  {
    _id: { type: String, required: true },
    cob: { type: Schema.Types.Mixed, required: true },
    amountCents: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
    pix: { type: Schema.Types.Mixed, default: null },
    analysis: { type: Schema.Types.Mixed, default: null },
  },
  { collection: 'sandbox_psp_cobs', versionKey: false, minimize: false },
);
// A refund finds its Pix by endToEndId; a restarted adapter resumes the callbacks not acknowledged.
ChargeSchema.index({ 'pix.endToEndId': 1 });
ChargeSchema.index({ 'pix.notified': 1 });
ChargeSchema.index({ 'analysis.notified': 1 });

const ChargeModel = mongoose.model<SandboxCharge>('SandboxCharge', ChargeSchema);

const RefundModel = mongoose.model<SandboxRefund>(
  'SandboxRefund',
  new Schema<SandboxRefund>(
    {
      _id: { type: String, required: true },
      endToEndId: { type: String, required: true, index: true },
      devolucao: { type: Schema.Types.Mixed, required: true },
      amountCents: { type: Number, required: true },
      requests: { type: Number, required: true },
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
    await syncIndexes([ChargeModel, RefundModel], logger);
    return new SandboxBooks();
  }

  findCharge(txid: string): Promise<SandboxCharge | null> {
    return ChargeModel.findById(txid).lean<SandboxCharge>().exec();
  }

  /**
   * Stores a charge under its txid unless one is there (PUT /cob is idempotent by txid): one command.
   * Returns the charge as stored, and whether this call created it.
   */
  async putCharge(
    txid: string,
    created: Pick<SandboxCharge, 'cob' | 'amountCents' | 'expiresAt'>,
  ): Promise<{ charge: SandboxCharge; created: boolean }> {
    const result = await ChargeModel.findOneAndUpdate(
      { _id: txid },
      { $setOnInsert: { ...created, pix: null, analysis: null } },
      { upsert: true, new: true, includeResultMetadata: true, lean: true },
    );
    return { charge: result.value as SandboxCharge, created: !result.lastErrorObject?.updatedExisting };
  }

  /**
   * Records the charge's Pix if it has none and has not expired, concluding the charge (GET /cob
   * shows it). The charge as it stands after: with this Pix, or with the one another request recorded
   * first; null when there is no such charge.
   */
  async recordPix(txid: string, pix: SandboxPix, now: Date): Promise<SandboxCharge | null> {
    const recorded = await ChargeModel.findOneAndUpdate(
      { _id: txid, pix: null, expiresAt: { $gt: now } },
      { $set: { pix, 'cob.status': 'CONCLUIDA' } },
      { new: true, lean: true },
    );
    return (recorded as SandboxCharge | null) ?? this.findCharge(txid);
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
    await ChargeModel.updateOne({ _id: txid }, { $set: { [`${what}.notified`]: true } });
  }

  /** Charges with a callback the receiver has not acknowledged: of their Pix, or of its analysis. */
  chargesOwingCallbacks(): Promise<{ pix: SandboxCharge[]; analysis: SandboxCharge[] }> {
    return Promise.all([
      ChargeModel.find({ 'pix.notified': false }).lean<SandboxCharge[]>().exec(),
      ChargeModel.find({ 'analysis.notified': false }).lean<SandboxCharge[]>().exec(),
    ]).then(([pix, analysis]) => ({ pix, analysis }));
  }

  /** The charge that received the Pix `endToEndId`. */
  chargeOfPix(endToEndId: string): Promise<SandboxCharge | null> {
    return ChargeModel.findOne({ 'pix.endToEndId': { $eq: endToEndId } })
      .lean<SandboxCharge>()
      .exec();
  }

  /**
   * Stores a refund under its key unless one is there (PUT /devolucao is idempotent by id), counting
   * the request: one command. Returns the refund as stored, and whether this call created it.
   */
  async putRefund(
    key: string,
    created: Pick<SandboxRefund, 'endToEndId' | 'devolucao' | 'amountCents'>,
  ): Promise<{ devolucao: Devolucao; created: boolean }> {
    const result = await RefundModel.findOneAndUpdate(
      { _id: key },
      { $setOnInsert: created, $inc: { requests: 1 } },
      { upsert: true, new: true, includeResultMetadata: true, lean: true },
    );
    return { devolucao: (result.value as SandboxRefund).devolucao, created: !result.lastErrorObject?.updatedExisting };
  }

  async findRefund(key: string): Promise<Devolucao | null> {
    const refund = await RefundModel.findById(key).lean<SandboxRefund>().exec();
    return refund?.devolucao ?? null;
  }
}
