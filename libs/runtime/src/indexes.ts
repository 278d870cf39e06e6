import { retrySetup } from '@pix/messaging';
import type { Logger } from '@pix/observability';

/** What syncIndexes needs of a mongoose model. */
export interface IndexedModel {
  diffIndexes(): Promise<{ toDrop: unknown[]; toCreate: unknown[] }>;
  syncIndexes(): Promise<unknown>;
  collection: { collectionName: string };
}

/**
 * Makes each model's collection have the indexes its schema declares, and only those, at start.
 * One model after another, each retried like the rest of a service's setup: on the local engine
 * (DocumentDB) creating collections and indexes changes a catalog every stack on the server shares,
 * and two services doing it at once can deadlock, which PostgreSQL resolves by failing one of them.
 */
export async function syncIndexes(models: readonly IndexedModel[], logger?: Logger): Promise<void> {
  for (const model of models) {
    await retrySetup(`indexes of ${model.collection.collectionName}`, () => syncOne(model), logger);
  }
}

/**
 * One read when the indexes are already as declared (every start but the first): mongoose's
 * syncIndexes alone sends a createIndexes for each declared index, existing or not, which a
 * replica restarted on a busy database waits for before it can answer.
 */
async function syncOne(model: IndexedModel): Promise<void> {
  const { toDrop, toCreate } = await model.diffIndexes();
  if (toDrop.length > 0 || toCreate.length > 0) await model.syncIndexes();
}
