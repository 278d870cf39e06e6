import mongoose, { Schema } from 'mongoose';
import type { ModeName } from '@pix/contracts';
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

/**
 * One document per PSP connection: the reconciliation of the Pix it received. The test
 * connection's keeps the id it had when there was one connection, so its cursor carries on.
 */
function cursorId(connection: ModeName, reading: CursorReading): string {
  if (reading === 'infractions') return `infractions:${connection}`;
  return connection === 'test' ? 'received-pix' : `received-pix:${connection}`;
}

/** What a cursor follows: the Pix a connection's PSP received, or the infractions it reports against them. */
export type CursorReading = 'received-pix' | 'infractions';

/**
 * The adapter's own state in MongoDB: how far the reconciliation of a connection's received Pix
 * has read, so a restarted or another replica goes on from there (one document per connection,
 * read and moved by _id; the reading of its infractions has one of its own). The only module of the
 * adapter's that touches it.
 */
export class ReconciliationCursor {
  static async open(
    connection: ModeName,
    logger?: Logger,
    reading: CursorReading = 'received-pix',
  ): Promise<ReconciliationCursor> {
    await syncIndexes([StateModel], logger);
    return new ReconciliationCursor(cursorId(connection, reading));
  }

  private constructor(private readonly id: string) {}

  read(): Promise<ReconciliationState | null> {
    return StateModel.findById(this.id).lean<ReconciliationState>().exec();
  }

  /**
   * Every Pix received up to `through` was fed: the cursor moves there, never back (a slower run
   * that read less and ends later leaves it where a faster one put it). One command.
   */
  async advance(through: Date, completedAt: Date): Promise<void> {
    await StateModel.updateOne({ _id: this.id }, { $max: { through, completedAt } }, { upsert: true });
  }
}
