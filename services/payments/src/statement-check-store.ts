import mongoose, { Schema } from 'mongoose';
import { STATEMENT_DIFFERENCES_KEPT, type ModeName, type StatementCheckResult } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { syncIndexes } from '@pix/runtime';

/**
 * The statement checks (`statement_checks`), payments' own collection: one document per São Paulo
 * day and PSP connection (`<connection>:<day>`), replaced when the day is checked again.
 */
interface StoredCheck extends Omit<StatementCheckResult, 'checkedAt'> {
  _id: string;
  checkedAt: Date;
}

const CheckSchema = new Schema<StoredCheck>(
  {
    _id: { type: String, required: true },
    day: { type: String, required: true },
    connection: { type: String, required: true },
    livemode: { type: Boolean, required: true },
    checkedAt: { type: Date, required: true },
    pixAtPsp: { type: Number, required: true },
    movements: { type: Number, required: true },
    differenceCount: { type: Number, required: true },
    differences: { type: Schema.Types.Mixed, default: [] },
  },
  { collection: 'statement_checks', versionKey: false, strict: true },
);
// The newest days first (the admin command, the metrics).
CheckSchema.index({ day: 1 });

const CheckModel = mongoose.model<StoredCheck>('StatementCheck', CheckSchema);

function resultOf(doc: StoredCheck): StatementCheckResult {
  return {
    day: doc.day,
    connection: doc.connection,
    livemode: doc.livemode,
    checkedAt: doc.checkedAt.toISOString(),
    pixAtPsp: doc.pixAtPsp,
    movements: doc.movements,
    differenceCount: doc.differenceCount,
    differences: doc.differences,
  };
}

export class StatementChecks {
  static async open(logger?: Logger): Promise<StatementChecks> {
    await syncIndexes([CheckModel], logger);
    return new StatementChecks();
  }

  private constructor() {}

  /** Stores a day's check of a connection, over an earlier one of the same day: one command. */
  async save(result: StatementCheckResult): Promise<void> {
    const doc: StoredCheck = {
      ...result,
      _id: `${result.connection}:${result.day}`,
      checkedAt: new Date(result.checkedAt),
      differences: result.differences.slice(0, STATEMENT_DIFFERENCES_KEPT),
    };
    await CheckModel.replaceOne({ _id: doc._id }, doc, { upsert: true }).exec();
  }

  /** Whether the day was checked on the connection already. */
  async has(connection: ModeName, day: string): Promise<boolean> {
    return (await CheckModel.exists({ _id: `${connection}:${day}` }).exec()) !== null;
  }

  /** The newest checks, newest day first: one command. */
  async newest(limit: number): Promise<StatementCheckResult[]> {
    const docs = await CheckModel.find({ day: { $gte: '' } })
      .sort({ day: -1, connection: 1 })
      .limit(limit)
      .lean<StoredCheck[]>()
      .exec();
    return docs.map(resultOf);
  }
}
