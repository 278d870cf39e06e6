import type { mongo } from 'mongoose';

/** The driver's server checks: each starts and ends with one of these (heartbeatFrequencyMS apart, 10 s). */
const HEARTBEAT_EVENTS = ['serverHeartbeatStarted', 'serverHeartbeatSucceeded', 'serverHeartbeatFailed'] as const;

/**
 * No check started or ended for this long means the client's monitor is stuck: a check takes at
 * most connectTimeoutMS (30 s), and the next starts 10 s after.
 */
export const MONITOR_STALL_MS = 60_000;

/**
 * Watches that a MongoDB client keeps checking its server. In a chaos run one replica's client
 * stopped checking when the database was killed under it (a check cut off half-way never ended):
 * the server stayed unknown with the error of that moment, every operation failed server selection
 * for minutes, and nothing brought it back, while the other replicas' clients reconnected as soon
 * as the database was back. `stalled` tells the caller to replace the client. A database that is
 * down is not a stall: its checks keep starting and failing.
 */
export class MonitorWatchdog {
  private lastBeat: number;

  constructor(
    readonly stallMs = MONITOR_STALL_MS,
    now = Date.now(),
  ) {
    this.lastBeat = now;
  }

  /** Listens to a client's checks (again for each new client). */
  watch(client: mongo.MongoClient): void {
    for (const event of HEARTBEAT_EVENTS) client.on(event, () => this.beat());
    this.beat();
  }

  beat(now = Date.now()): void {
    this.lastBeat = now;
  }

  /** How long since the last check started or ended, when that is longer than the stall bound. */
  stalled(now = Date.now()): number | null {
    const silent = now - this.lastBeat;
    return silent > this.stallMs ? silent : null;
  }
}
