import type { Logger } from '@pix/observability';
import { AttemptModel, DeliveryModel } from './deliveries';

const logCollections = () => [DeliveryModel.collection, AttemptModel.collection];

/**
 * Makes the delivery log forget finished entries after the retention (their expiresAt). MongoDB
 * does it with a TTL index on expiresAt. FerretDB 1.24 refuses TTL indexes ("Index option
 * expireAfterSeconds is not implemented yet"); there the returned purge must be run periodically.
 * Returns null when the TTL index does the work.
 */
export async function ensureLogRetention(logger: Logger): Promise<(() => Promise<void>) | null> {
  try {
    for (const collection of logCollections()) {
      await collection.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0, name: 'expiresAt_ttl' });
    }
    return null;
  } catch (err) {
    logger.warn({ err }, 'the database refuses TTL indexes; the delivery log is purged periodically instead');
    return purgeExpired;
  }
}

async function purgeExpired(now = new Date()): Promise<void> {
  for (const collection of logCollections()) await collection.deleteMany({ expiresAt: { $lte: now } });
}
