import mongoose, { Schema } from 'mongoose';
import type { Logger } from '@pix/observability';
import { syncIndexes } from '@pix/runtime';

/** How far the reconciliation with the PSP has read: every Pix received up to `through` was fed. */
export interface ReconciliationState {
  _id: string;
  through: Date;
  /** When the last complete reconciliation ended (any replica). */
  completedAt: Date;
}

const StateModel = mongoose.model<ReconciliationState>(
  'PspReconciliation',
  new Schema<ReconciliationState>(
    {
      _id: { type: String, required: true },
      through: { type: Date, required: true },
      completedAt: { type: Date, required: true },
    },
    { collection: 'psp_reconciliations', versionKey: false },
  ),
);

/** The one document: the reconciliation of the Pix received. */
const RECEIVED_PIX = 'received-pix';

/**
 * The adapter's own state in MongoDB: how far the reconciliation of received Pix has read, so a
 * restarted or another replica goes on from there (one document, read and moved by _id). The only
 * module of the adapter's that touches it.
 */
export class ReconciliationCursor {
  static async open(logger?: Logger): Promise<ReconciliationCursor> {
    await syncIndexes([StateModel], logger);
    return new ReconciliationCursor();
  }

  read(): Promise<ReconciliationState | null> {
    return StateModel.findById(RECEIVED_PIX).lean<ReconciliationState>().exec();
  }

  /**
   * Every Pix received up to `through` was fed: the cursor moves there, never back (a slower run
   * that read less and ends later leaves it where a faster one put it). One command.
   */
  async advance(through: Date, completedAt: Date): Promise<void> {
    await StateModel.updateOne({ _id: RECEIVED_PIX }, { $max: { through, completedAt } }, { upsert: true });
  }
}
