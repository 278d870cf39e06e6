import mongoose from 'mongoose';
import { connectNats, isNatsConnected, type NatsConnection } from '@pix/messaging';
import { countDatabaseCommands, databaseClientReplacements } from './database-metrics';
import { MonitorWatchdog } from './database-watchdog';
import { slowPoolUpkeep } from './pool-upkeep';
import { DatabaseReplies, databaseReachable } from './readiness';
import type { Service } from './service';

/**
 * Indexes and collections come from syncIndexes (indexes.ts) only: mongoose would otherwise build
 * them for every model as it compiles, at the same time as syncIndexes builds them too (and a test
 * counting a write's commands would count those builds).
 */
export const DATABASE_CLIENT_OPTIONS = {
  serverSelectionTimeoutMS: 10_000,
  monitorCommands: true,
  autoIndex: false,
  autoCreate: false,
};
/** How often the client's checks are looked at (MonitorWatchdog). */
const WATCHDOG_INTERVAL_MS = 5_000;

/** Where the database is and the service's login there (MongoEnv of @pix/config). */
export interface DatabaseSettings {
  MONGO_URL: string;
  MONGO_USERNAME?: string;
  MONGO_PASSWORD?: string;
}

/**
 * The service's own login, given apart from the URL. Users live in `admin` on MongoDB (their roles
 * name the collections of the platform's database); FerretDB ignores the source.
 */
function loginOptions(settings: DatabaseSettings): mongoose.ConnectOptions {
  const { MONGO_USERNAME: username, MONGO_PASSWORD: password } = settings;
  if (!username && !password) return {};
  if (!username || !password) {
    throw new Error(
      `MONGO_USERNAME and MONGO_PASSWORD go together: ${username ? 'MONGO_PASSWORD' : 'MONGO_USERNAME'} is missing`,
    );
  }
  return { auth: { username, password }, authSource: 'admin' };
}

/**
 * Connects mongoose to MongoDB for this service: the database becomes a readiness check (a reply
 * of the server's, to the service's work lately or to a ping: readiness.ts) and is disconnected on
 * shutdown, after the work that uses it has stopped. A client whose server checks stop
 * (MonitorWatchdog) is replaced: the connection closes and opens again, which the models follow
 * (they are bound to the connection, not to its client).
 */
export async function connectDatabase(
  service: Service<string>,
  settings: DatabaseSettings,
  watchdog = new MonitorWatchdog(),
): Promise<void> {
  // Otherwise every query formats a stack trace as it runs (kept for a "Query was already
  // executed" error we never make): a profiled confirmation spent 0.6 ms of the PSP simulator's CPU on it.
  mongoose.set('skipOriginalStackTraces', true);
  const options = { ...DATABASE_CLIENT_OPTIONS, ...loginOptions(settings) };
  const replies = new DatabaseReplies();
  const open = async () => {
    await mongoose.connect(settings.MONGO_URL, options);
    slowPoolUpkeep(mongoose.connection.getClient());
    countDatabaseCommands(mongoose.connection.getClient());
    replies.watch(mongoose.connection.getClient());
    watchdog.watch(mongoose.connection.getClient());
  };
  await open();
  service.mark('database');
  let reopening = false;
  const timer = setInterval(
    () => {
      const silentMs = watchdog.stalled();
      if (silentMs === null || reopening) return;
      reopening = true;
      service.logger.error({ silentMs }, 'the database client stopped checking the server; opening a new one');
      databaseClientReplacements.inc();
      watchdog.beat(); // a reopening that fails is tried again one stall later
      // Not forced: mongoose refuses every later operation of a force-closed connection, reopened or not.
      mongoose.connection
        .close()
        .then(open)
        .catch((err: unknown) => service.logger.error({ err }, 'opening a new database client failed'))
        .finally(() => (reopening = false));
    },
    Math.min(WATCHDOG_INTERVAL_MS, watchdog.stallMs / 2),
  );
  timer.unref();
  service.onShutdown('mongodb', () => {
    clearInterval(timer);
    return mongoose.disconnect();
  });
  service.addReadinessCheck('mongodb', () => databaseReachable(mongoose.connection.db, replies));
}

/** Where NATS is and how this service proves who it is there (CommonEnv in @pix/config). */
export interface NatsSettings {
  NATS_URL: string;
  NATS_NKEY_SEED_FILE?: string;
  NATS_CA_FILE?: string;
}

/**
 * Connects to NATS as this service, with its own credentials: connected is a readiness check, and
 * it drains on shutdown.
 */
export async function connectMessaging(service: Service, settings: NatsSettings): Promise<NatsConnection> {
  const nc = await connectNats(settings.NATS_URL, service.name, service.logger, {
    seedFile: settings.NATS_NKEY_SEED_FILE,
    caFile: settings.NATS_CA_FILE,
  });
  service.mark('nats');
  service.onShutdown('nats', () => nc.drain());
  service.addReadinessCheck('nats', () => isNatsConnected(nc));
  return nc;
}
