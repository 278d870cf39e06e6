import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Collection, Document } from 'mongodb';
import { runLoad } from './load';
import { closedLoop, type Throughput } from './stats';

/**
 * What the hardware and the database allow, measured beside the API on the same servers: the
 * driver's own queries with no service in between, and an HTTP server that does nothing.
 */

/** findOne by _id, cycling through stored payments. */
export function rawFindOne(
  payments: Collection<Document>,
  ids: readonly string[],
  concurrency: number,
  seconds: number,
): Promise<Throughput> {
  return closedLoop(concurrency, seconds, async (n) => {
    const doc = await payments.findOne({ _id: ids[n % ids.length] as unknown as Document['_id'] });
    if (!doc) throw new Error('seeded payment not found');
  });
}

/**
 * A store's first page as the list asks for it (newest first, limit 50) and its total, together,
 * read through the index the checkout's list uses: its list key (`<store>|<time>|<id>`, issue 17
 * on) or, before it, storeId with createdAt.
 */
export function rawFindAndCount(
  payments: Collection<Document>,
  storeId: string,
  byListKey: boolean,
  concurrency: number,
  seconds: number,
): Promise<Throughput> {
  const filter = byListKey ? { listKey: { $gte: `${storeId}|`, $lt: `${storeId}|\u{10FFFF}` } } : { storeId };
  const sort: Record<string, -1> = byListKey ? { listKey: -1 } : { createdAt: -1, _id: -1 };
  return closedLoop(concurrency, seconds, async () => {
    await Promise.all([payments.find(filter).sort(sort).limit(50).toArray(), payments.countDocuments(filter)]);
  });
}

/** insertOne of a payment-shaped document made by `make`, under a fresh id. */
export function rawInsertOne(
  payments: Collection<Document>,
  make: () => Document,
  concurrency: number,
  seconds: number,
): Promise<Throughput> {
  return closedLoop(concurrency, seconds, () =>
    payments.insertOne({ ...make(), _id: randomUUID() as unknown as Document['_id'] }),
  );
}

/**
 * Node's HTTP server answering a small JSON body at once, in a process of its own like a service:
 * the ceiling of any Node service on this machine.
 */
export async function bareHttp(connections: number, seconds: number): Promise<Throughput> {
  const server = spawn(
    process.execPath,
    [
      '-e',
      `const body = JSON.stringify({ ok: true });
       require('node:http')
         .createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body))
         .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(server.stdout, 'data')) as [Buffer];
    return await runLoad({
      baseUrl: `http://127.0.0.1:${line.toString().trim()}`,
      method: 'GET',
      targets: [{ path: '/', token: 'none' }],
      connections,
      seconds,
    });
  } finally {
    server.kill();
  }
}
