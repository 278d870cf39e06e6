import type { mongo } from 'mongoose';
import { Counter, libraryMetric } from '@pix/observability';

/**
 * Every command a service sends to the database, by command and collection, from the driver's
 * command monitoring. It is how the tests hold each operation to its budget of database commands
 * (a count, never a timing), and how an operator sees which collection a load falls on.
 */
export const databaseCommands = libraryMetric(
  new Counter({
    name: 'db_commands_total',
    help: 'Commands sent to the database, by command name and collection',
    labelNames: ['command', 'collection'] as const,
    registers: [],
  }),
);

/** Database clients replaced because their server checks had stopped (database-watchdog.ts). */
export const databaseClientReplacements = libraryMetric(
  new Counter({
    name: 'db_client_replacements_total',
    help: 'Database clients replaced because the driver had stopped checking the server',
    registers: [],
  }),
);

/** Connection upkeep, not work: the driver's handshakes, heartbeats, readiness pings and sessions. */
const UPKEEP = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'ping',
  'endSessions',
  'saslStart',
  'saslContinue',
  'buildInfo',
]);

function countCommand(event: mongo.CommandStartedEvent): void {
  if (UPKEEP.has(event.commandName)) return;
  const target = (event.command as Record<string, unknown>)[event.commandName];
  databaseCommands.inc({ command: event.commandName, collection: typeof target === 'string' ? target : '' });
}

/** Counts the client's commands into db_commands_total (the client needs `monitorCommands: true`). */
export function countDatabaseCommands(client: mongo.MongoClient): void {
  client.on('commandStarted', countCommand);
}
