import { MongoClient, type Db } from 'mongodb';
import type { StackInfo } from '@pix/devstack';

/**
 * Direct read access to a stack's database, for what no API shows: the refund kept on a payment,
 * the sandbox PSP's books. Tests read through it; one writes what no API can (a secret sealed
 * under a retired key).
 */
export async function withDb<T>(mongoUrl: string, fn: (db: Db) => Promise<T>, database?: string): Promise<T> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  try {
    return await fn(client.db(database));
  } finally {
    await client.close();
  }
}

/**
 * The stack's PSP simulator's database (its books: sandbox_psp_cobs, _pix, _refunds), read with the
 * stack's administrator login: the PSP's side of what the platform did.
 */
export function withPspDb<T>(stack: Pick<StackInfo, 'pspMongoAdminUrl'>, fn: (db: Db) => Promise<T>): Promise<T> {
  if (!stack.pspMongoAdminUrl) throw new Error('the stack has no PSP simulator or no administrator login');
  return withDb(stack.pspMongoAdminUrl, fn);
}
