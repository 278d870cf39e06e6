import mongoose, { Schema } from 'mongoose';
import type { AnalysisState, Cob, Devolucao } from '../api-pix/wire';

/**
 * The sandbox PSP's books, in MongoDB so that they outlive a restart of the adapter: its charges
 * (cob), the Pix it received and the refunds (devoluções) it made.
 */
export interface SandboxCobDoc {
  _id: string; // txid
  cob: Cob;
  amountCents: number;
  expiresAt: Date;
}

export interface SandboxPixDoc {
  _id: string; // endToEndId
  txid: string;
  amountCents: number;
  paidAt: Date;
  /** Set when the PSP held this Pix for analysis. */
  analysis: AnalysisState | null;
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
      txid: { type: String, required: true, index: true },
      amountCents: { type: Number, required: true },
      paidAt: { type: Date, required: true },
      analysis: { type: String, default: null },
    },
    { collection: 'sandbox_psp_pix', versionKey: false },
  ),
);

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
