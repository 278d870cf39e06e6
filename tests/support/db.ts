import { MongoClient, type Db } from 'mongodb';

/**
 * Direct read access to a stack's database, for what no API shows: the refund kept on a payment,
 * the sandbox PSP's books. Tests read through it; one writes what no API can (a secret sealed
 * under a retired key).
 */
export async function withDb<T>(mongoUrl: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    return await fn(client.db());
  } finally {
    await client.close();
  }
}
