import { EventEmitter } from 'node:events';
import { mongo } from 'mongoose';
import { DatabaseReplies, databaseReachable } from './readiness';

/** A driver client as command monitoring sees it, and a clock the test moves. */
function setup() {
  let now = 10_000;
  const client = new EventEmitter();
  const replies = new DatabaseReplies(() => now);
  replies.watch(client as never);
  const pings: number[] = [];
  const db = (answer: 'ok' | 'refused') => ({
    command: async () => {
      pings.push(now);
      if (answer === 'refused') throw new Error('connect ECONNREFUSED');
      return { ok: 1 };
    },
  });
  return { client, replies, pings, db, advance: (ms: number) => (now += ms) };
}

const serverError = new mongo.MongoServerError({ errmsg: 'E11000 duplicate key', code: 11000 });
const networkError = new mongo.MongoNetworkError('connection 3 to 127.0.0.1:27017 closed');

describe('database readiness', () => {
  it('counts a reply to the service’s work as a round trip, without a ping that would wait behind it', async () => {
    const { client, replies, pings, db } = setup();
    client.emit('commandSucceeded', {});
    await expect(databaseReachable(db('refused'), replies)).resolves.toBe(true);
    expect(pings).toEqual([]);
  });

  it('counts an error the server sent as a reply', async () => {
    const { client, replies, pings, db } = setup();
    client.emit('commandFailed', { failure: serverError });
    await expect(databaseReachable(db('refused'), replies)).resolves.toBe(true);
    expect(pings).toEqual([]);
  });

  it('asks the server itself once the last reply is older than half a second, or a connection failed since', async () => {
    const { client, replies, pings, db, advance } = setup();
    client.emit('commandSucceeded', {});
    advance(501);
    await expect(databaseReachable(db('refused'), replies)).rejects.toThrow('ECONNREFUSED');
    expect(pings).toHaveLength(1);

    client.emit('commandSucceeded', {});
    advance(10);
    client.emit('commandFailed', { failure: networkError });
    await expect(databaseReachable(db('ok'), replies)).resolves.toBe(true);
    expect(pings).toHaveLength(2);
  });

  it.each(['serverHeartbeatFailed', 'connectionPoolCleared'])('asks the server itself after %s', async (event) => {
    const { client, replies, pings, db, advance } = setup();
    client.emit('commandSucceeded', {});
    advance(1);
    client.emit(event, {});
    await expect(databaseReachable(db('ok'), replies)).resolves.toBe(true);
    expect(pings).toHaveLength(1);
  });

  it('is not ready without a connection at all', async () => {
    const { replies } = setup();
    await expect(databaseReachable(undefined, replies)).resolves.toBe(false);
  });
});
