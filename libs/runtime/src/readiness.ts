import { mongo } from 'mongoose';

/** How fresh a reply of the database's must be to stand for a round trip of readiness's own. */
const RECENT_REPLY_MS = 500;

/**
 * The database's replies to this service's own work, from the driver's command monitoring. A reply
 * the server sent (a result, or an error such as a duplicate key) proves a connection that works;
 * a failure without one (the connection dropped or timed out) proves the opposite.
 *
 * Why readiness needs it: under load a readiness ping waits behind the work for a pooled
 * connection, and outlasted the probe's 800 ms for 78 s on a webhook dispatcher that was
 * delivering all the while (issue 27). A check must measure what it claims, a connection that
 * works, not a latency that load stretches.
 */
export class DatabaseReplies {
  private lastReply = 0;
  private lastFailure = 0;

  constructor(private readonly now: () => number = Date.now) {}

  watch(client: Pick<mongo.MongoClient, 'on'>): void {
    client.on('commandSucceeded', () => (this.lastReply = this.now()));
    client.on('commandFailed', (event: mongo.CommandFailedEvent) => {
      // An error the server sent (MongoServerError) is a reply; a lost connection is not.
      if (event.failure instanceof mongo.MongoServerError) this.lastReply = this.now();
      else this.lastFailure = this.now();
    });
    // The driver's own signs of a lost server, which come even when no work is in flight.
    const failed = () => (this.lastFailure = this.now());
    client.on('serverHeartbeatFailed', failed);
    client.on('connectionPoolCleared', failed);
  }

  /** A reply came within RECENT_REPLY_MS, and no failure without one since. */
  answeredLately(): boolean {
    return this.lastReply >= this.lastFailure && this.now() - this.lastReply <= RECENT_REPLY_MS;
  }
}

/**
 * The database answers a round trip now: a reply to this service's work lately, or else a ping.
 * The driver's connection state stays "connected" for a while after the server went away, so an
 * idle service asks the server itself.
 */
export async function databaseReachable(
  db: { command(command: { ping: 1 }): Promise<unknown> } | undefined,
  replies: Pick<DatabaseReplies, 'answeredLately'>,
): Promise<boolean> {
  if (!db) return false;
  if (replies.answeredLately()) return true;
  await db.command({ ping: 1 });
  return true;
}
