import mongoose, { type mongo } from 'mongoose';
import { connectNats, isNatsConnected, type NatsConnection } from '@pix/messaging';
import { countDatabaseCommands } from './database-metrics';
import { databaseReachable } from './readiness';
import type { Service } from './service';

/**
 * Connects mongoose to MongoDB for this service: the database becomes a readiness check (a real
 * round trip) and is disconnected on shutdown, after the work that uses it has stopped. Returns the
 * database, for what runs below the models (the retention probe).
 */
export async function connectDatabase(service: Service, url: string): Promise<mongo.Db> {
  await mongoose.connect(url, { serverSelectionTimeoutMS: 10_000, monitorCommands: true });
  countDatabaseCommands(mongoose.connection.getClient());
  service.onShutdown('mongodb', () => mongoose.disconnect());
  service.addReadinessCheck('mongodb', () => databaseReachable(mongoose.connection.db));
  return mongoose.connection.db!;
}

/** Connects to NATS as this service: connected is a readiness check, and it drains on shutdown. */
export async function connectMessaging(service: Service, url: string): Promise<NatsConnection> {
  const nc = await connectNats(url, service.name, service.logger);
  service.onShutdown('nats', () => nc.drain());
  service.addReadinessCheck('nats', () => isNatsConnected(nc));
  return nc;
}
