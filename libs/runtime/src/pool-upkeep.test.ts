import type { mongo } from 'mongoose';
import { EventEmitter } from 'node:events';
import { POOL_UPKEEP_MS, slowPoolUpkeep } from './pool-upkeep';

const pool = (minPoolSize: number) => ({
  options: Object.freeze({ minPoolSize, minPoolSizeCheckFrequencyMS: 100, maxPoolSize: 100 }),
});

describe('slowPoolUpkeep', () => {
  it('slows the upkeep of pools without a minimum, now and as pools are created', () => {
    const client = Object.assign(new EventEmitter(), {
      topology: { s: { servers: new Map([['a:27017', { pool: pool(0) }]]) } },
    });
    slowPoolUpkeep(client as unknown as mongo.MongoClient);
    const first = client.topology.s.servers.get('a:27017')?.pool;
    expect(first?.options).toEqual({ minPoolSize: 0, minPoolSizeCheckFrequencyMS: POOL_UPKEEP_MS, maxPoolSize: 100 });
    expect(Object.isFrozen(first?.options)).toBe(true);

    client.topology.s.servers.set('b:27017', { pool: pool(0) });
    client.topology.s.servers.set('c:27017', { pool: pool(5) });
    client.emit('connectionPoolCreated');
    expect(client.topology.s.servers.get('b:27017')?.pool.options.minPoolSizeCheckFrequencyMS).toBe(POOL_UPKEEP_MS);
    // A pool with connections to keep refills at the driver's pace.
    expect(client.topology.s.servers.get('c:27017')?.pool.options.minPoolSizeCheckFrequencyMS).toBe(100);
  });

  it('does nothing to a client whose internals it does not find', () => {
    const client = new EventEmitter();
    expect(() => slowPoolUpkeep(client as unknown as mongo.MongoClient)).not.toThrow();
  });
});
