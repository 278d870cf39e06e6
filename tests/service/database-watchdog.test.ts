import mongoose from 'mongoose';
import { connectDatabase, MonitorWatchdog, POOL_UPKEEP_MS, type Service } from '@pix/runtime';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';

/**
 * A client whose monitor stopped checking the server (as one replica's did when the database was
 * killed under load) is replaced, and the models work on the new one. The monitor is stopped here
 * through the driver's internals, the one way to make it stop on purpose; the database is real.
 */
describe('a database client that stopped checking its server', () => {
  const shutdown: (() => unknown)[] = [];
  const logged: string[] = [];
  // The service shell only: the connection, its checks and its reopening are the real ones.
  const service = {
    logger: { error: (_: unknown, msg: string) => logged.push(msg) },
    onShutdown: (_: string, step: () => unknown) => shutdown.push(step),
    addReadinessCheck: () => undefined,
    mark: () => undefined,
  } as unknown as Service;

  afterAll(async () => {
    for (const step of shutdown) await step();
  });

  it('is replaced by a new one, which the models use', async () => {
    await connectDatabase(service, { MONGO_URL: sharedStack().mongoAdminUrl! }, new MonitorWatchdog(2_000));
    const Probe = mongoose.model(
      'WatchdogProbe',
      new mongoose.Schema({ _id: String }, { collection: 'watchdog_probe' }),
    );
    await Probe.create({ _id: 'before' });
    const first = mongoose.connection.getClient();

    const servers = (first as unknown as { topology: { s: { servers: Map<string, { monitor?: { close(): void } }> } } })
      .topology.s.servers;
    for (const server of servers.values()) server.monitor?.close();

    await eventually(
      async () => mongoose.connection.getClient() !== first && mongoose.connection.readyState === 1,
      (replaced) => replaced,
      30_000,
      200,
    );
    expect(logged).toContain('the database client stopped checking the server; opening a new one');
    await Probe.create({ _id: 'after' });
    expect((await Probe.find({ _id: { $in: ['before', 'after'] } }).lean()).length).toBe(2);
    await Probe.deleteMany({});
    // The new client's pool keeps the slower upkeep too (pool-upkeep.ts), through the real driver.
    const pools = (
      mongoose.connection.getClient() as unknown as {
        topology: { s: { servers: Map<string, { pool: { options: { minPoolSizeCheckFrequencyMS: number } } }> } };
      }
    ).topology.s.servers;
    expect([...pools.values()].map((server) => server.pool.options.minPoolSizeCheckFrequencyMS)).toEqual([
      POOL_UPKEEP_MS,
    ]);
  }, 60_000);
});
