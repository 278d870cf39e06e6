import mongoose, { Schema } from 'mongoose';
import { isDuplicateKey } from '@pix/runtime';
import type { AnalysisState, Cob, Devolucao } from '../api-pix/wire';

/**
 * The sandbox PSP's books, in MongoDB so that they outlive a restart of the adapter: its charges
 * (cob), the Pix it received, the analyses it concluded and the refunds (devoluções) it made. Every
 * query is an equality on a field listed in EqualityIndexedFields (libs/contracts).
 */
export interface SandboxCobDoc {
  _id: string; // txid
  cob: Cob;
  amountCents: number;
  expiresAt: Date;
}

/**
 * The one Pix a charge received, under the charge's txid: the insert that creates it decides which
 * of racing payers pays the charge, atomically on FerretDB as on MongoDB (a conditional update
 * would not be: FerretDB applies it as read, change, write back).
 */
export interface SandboxPixDoc {
  _id: string; // txid
  endToEndId: string;
  amountCents: number;
  paidAt: Date;
  /** The PSP held this Pix for analysis (sandbox review) rather than confirming it. */
  held: boolean;
  /** The receiver acknowledged the callback; until then the PSP keeps calling. */
  notified: boolean;
}

/** The end of a held Pix's analysis, under the txid: the insert decides between a racing clear and reject. */
export interface SandboxAnalysisDoc {
  _id: string; // txid
  endToEndId: string;
  outcome: Exclude<AnalysisState, 'EM_ANALISE'>;
  decidedAt: Date;
  notified: boolean;
}

export interface SandboxRefundDoc {
  _id: string; // `${endToEndId}/${id}`
  endToEndId: string;
  devolucao: Devolucao;
  amountCents: number;
  /** How many times the refund was requested (a retry answers the same devolução). */
  requests: number;
}

export const SandboxCobModel = mongoose.model<SandboxCobDoc>(
  'SandboxCob',
  new Schema<SandboxCobDoc>(
    {
      _id: { type: String, required: true },
      cob: { type: Schema.Types.Mixed, required: true },
      amountCents: { type: Number, required: true },
      expiresAt: { type: Date, required: true },
    },
    { collection: 'sandbox_psp_cobs', versionKey: false },
  ),
);

export const SandboxPixModel = mongoose.model<SandboxPixDoc>(
  'SandboxPix',
  new Schema<SandboxPixDoc>(
    {
      _id: { type: String, required: true },
      endToEndId: { type: String, required: true, index: true },
      amountCents: { type: Number, required: true },
      paidAt: { type: Date, required: true },
      held: { type: Boolean, required: true },
      notified: { type: Boolean, required: true, index: true },
    },
    { collection: 'sandbox_psp_pix', versionKey: false },
  ),
);

export const SandboxAnalysisModel = mongoose.model<SandboxAnalysisDoc>(
  'SandboxAnalysis',
  new Schema<SandboxAnalysisDoc>(
    {
      _id: { type: String, required: true },
      endToEndId: { type: String, required: true },
      outcome: { type: String, required: true },
      decidedAt: { type: Date, required: true },
      notified: { type: Boolean, required: true, index: true },
    },
    { collection: 'sandbox_psp_analyses', versionKey: false },
  ),
);

/** Inserts a document under its `_id`, or returns the one already there (which won a race, or a retry's first try). */
export async function insertOnce<T extends { _id: string }>(model: mongoose.Model<T>, doc: T): Promise<T> {
  try {
    await model.create(doc);
    return doc;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const existing = await model.findById(doc._id).lean<T>();
    if (!existing) throw err;
    return existing;
  }
}

export const SandboxRefundModel = mongoose.model<SandboxRefundDoc>(
  'SandboxRefund',
  new Schema<SandboxRefundDoc>(
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
