import type { mongo, Schema } from 'mongoose';
import { Periodic } from './periodic';
import { bucketOf, bucketsBetween, UTC_DAY } from './time-buckets';

/**
 * How documents that expire (a finished webhook delivery, an idempotency key) leave the database,
 * chosen once at start by asking the server whether it accepts a TTL index:
 *
 * - `ttl-index` (MongoDB): a TTL index on `expiresAt`, declared in the schema so that
 *   `syncIndexes()` keeps it; the server deletes expired documents itself.
 * - `expiry-buckets` (FerretDB 1.24 refuses TTL indexes): every expiring document also carries its
 *   expiry day, `expiresOn` (`YYYY-MM-DD`, UTC), and the service deletes each day that has passed
 *   with an equality filter on that indexed field, so the purge never scans the collection (a range
 *   on `expiresAt` would: FerretDB pushes down only top-level equality).
 *
 * Writers are the same on both engines: they set both fields (expiryFields).
 */
export type RetentionBranch = 'ttl-index' | 'expiry-buckets';

/** The fields an expiring document carries; both null while it must be kept. */
export interface ExpiryFields {
  expiresAt: Date | null;
  expiresOn: string | null;
}

/** How far back a purge at start looks for days not purged yet (the service may have been down). */
export const PURGE_CATCH_UP_DAYS = 45;
/** How often the purge looks whether another day has passed. */
export const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** MongoDB's NotImplemented, which FerretDB answers for `expireAfterSeconds`. */
const NOT_IMPLEMENTED = 238;

/** The UTC day of an instant, `YYYY-MM-DD`: the expiry bucket. */
export function dayOf(at: Date): string {
  return bucketOf(UTC_DAY, at);
}

export function expiryFields(expiresAt: Date | null): ExpiryFields {
  return { expiresAt, expiresOn: expiresAt ? dayOf(expiresAt) : null };
}

/**
 * The branch a TTL-index probe decides: accepted → the TTL index; refused as not implemented →
 * expiry buckets. Any other failure (the database unreachable, say) is not an answer and is thrown.
 */
export function branchFor(probeError: unknown): RetentionBranch {
  if (probeError === null || probeError === undefined) return 'ttl-index';
  const { code, message } = probeError as { code?: unknown; message?: unknown };
  if (code === NOT_IMPLEMENTED || (typeof message === 'string' && /expireAfterSeconds/i.test(message))) {
    return 'expiry-buckets';
  }
  throw probeError;
}

/** The index a schema declares for its branch: the TTL index, or the index the daily purge uses. */
export function expiryIndex(branch: RetentionBranch): {
  fields: Record<string, 1>;
  options: { expireAfterSeconds?: number };
} {
  return branch === 'ttl-index'
    ? { fields: { expiresAt: 1 }, options: { expireAfterSeconds: 0 } }
    : { fields: { expiresOn: 1 }, options: {} };
}

/**
 * The expiry days a purge at `now` deletes: every day after `lastPurged` up to yesterday (today's
 * documents are not all expired yet). With nothing purged yet, it goes back PURGE_CATCH_UP_DAYS.
 */
export function daysToPurge(lastPurged: string | null, now: Date, catchUpDays = PURGE_CATCH_UP_DAYS): string[] {
  const yesterday = dayOf(new Date(now.getTime() - UTC_DAY.ms));
  const after = lastPurged ?? dayOf(new Date(now.getTime() - (catchUpDays + 1) * UTC_DAY.ms));
  return bucketsBetween(UTC_DAY, after, yesterday);
}

/** Asks the server whether it accepts a TTL index (on a scratch collection, dropped after). */
export async function probeRetention(db: mongo.Db): Promise<RetentionBranch> {
  const probe = db.collection('retention_probe');
  try {
    await probe.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    return branchFor(null);
  } catch (err) {
    return branchFor(err);
  } finally {
    await probe.drop().catch(() => undefined);
  }
}

/** Declares the branch's expiry index on a schema, before its model's syncIndexes(). */
export function declareExpiry(schema: Schema, branch: RetentionBranch): void {
  const { fields, options } = expiryIndex(branch);
  schema.index(fields, options);
}

/**
 * On the expiry-buckets branch, deletes each passed expiry day from the collections, hourly (a day
 * is deleted once: a failed delete is tried again next hour). On the TTL branch it does nothing.
 */
export class ExpiryPurge extends Periodic {
  private lastPurged: string | null = null;

  constructor(
    private readonly branch: RetentionBranch,
    private readonly collections: () => mongo.Collection[],
    onError: (err: unknown) => void,
  ) {
    super(PURGE_INTERVAL_MS, onError);
  }

  override start(): void {
    if (this.branch === 'expiry-buckets') super.start();
  }

  protected run(): Promise<void> {
    return this.purge();
  }

  /** Deletes the expiry days passed since the last purge. */
  async purge(now = new Date()): Promise<void> {
    for (const day of daysToPurge(this.lastPurged, now)) {
      for (const collection of this.collections()) await collection.deleteMany({ expiresOn: day });
      this.lastPurged = day;
    }
  }
}
