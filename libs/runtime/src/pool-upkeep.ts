import type { mongo } from 'mongoose';

/** How often an idle connection pool is looked over, rather than the driver's 100 ms. */
export const POOL_UPKEEP_MS = 10_000;

/** The driver's internals this reaches (mongodb 6: Topology.s.servers, Server.pool, ConnectionPool.options). */
interface PoolLike {
  options: { readonly minPoolSize: number; readonly minPoolSizeCheckFrequencyMS: number };
}
interface ClientInternals {
  topology?: { s?: { servers?: Map<string, { pool?: PoolLike }> } };
}

/**
 * Every connection pool of the MongoDB driver re-arms a timer every 100 ms
 * (`minPoolSizeCheckFrequencyMS`, an internal option the client refuses to take) to open
 * connections up to `minPoolSize` and to drop perished ones: ten wake-ups a second in every
 * service, three quarters of its timers when idle and about 0.1 to 0.25 % of a core each (issue
 * 27). With `minPoolSize` 0, as here, the pass opens nothing; it only drops connections that are
 * already closed, or from before a pool clear (`maxIdleTimeMS` is 0: none expire). A checkout drops
 * those itself before it uses one (`destroyConnectionIfPerished`), so no operation ever meets one
 * and this pass only frees them sooner: every 10 s is enough. A pool that has a minimum to keep is
 * left alone, so refilling it after a clear is not delayed.
 *
 * The driver freezes a pool's options, so they are replaced whole. Each pool is set as it is
 * created (a replica set's members are found after connecting); on a driver whose internals differ
 * this does nothing, and the driver keeps its own pace.
 */
export function slowPoolUpkeep(client: mongo.MongoClient, everyMs = POOL_UPKEEP_MS): void {
  const internals = client as unknown as ClientInternals;
  const apply = () => {
    for (const server of internals.topology?.s?.servers?.values() ?? []) {
      const pool = server.pool;
      if (!pool || pool.options.minPoolSize !== 0 || pool.options.minPoolSizeCheckFrequencyMS === everyMs) continue;
      pool.options = Object.freeze({ ...pool.options, minPoolSizeCheckFrequencyMS: everyMs });
    }
  };
  apply();
  // Emitted on the tick after the pool exists, and relayed to the client.
  client.on('connectionPoolCreated', apply);
}
