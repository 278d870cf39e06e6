import { JetStreamError, jetstreamManager, type JetStreamManager, type StoredMsg } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { AuthBucket, AuthBucketStream, Subjects } from '@pix/contracts';
import type { Logger } from '@pix/observability';

/** One entry of the AUTH bucket as the gateway applies it: its key, and its value unless it was deleted. */
export interface AuthBucketEntry {
  key: string;
  /** The bucket's revision (its stream's sequence): entries are applied in this order, each once. */
  revision: number;
  deleted: boolean;
  json(): unknown;
}

/** What the auth cache learns from the bucket: its current entries, then every change. */
export interface AuthBucketChanges {
  /**
   * Calls `apply` with every entry the bucket holds, then with each change as it is made. After a
   * NATS reconnection, changes may have been missed: it calls `forget` first, then goes through the
   * bucket again. Resolves once the first pass is done.
   */
  follow(forget: () => void, apply: (entry: AuthBucketEntry) => void): Promise<void>;
  stop(): void;
}

/** Entries per batched direct get. */
const BATCH = 1000;
const RETRY_MS = 500;
const BUCKET_PREFIX = `$KV.${AuthBucket.name}.`;
const FEED_PREFIX = Subjects.authFeedAll.slice(0, -1);

/**
 * The AUTH bucket's entries and changes without a consumer: a service that may create consumers
 * could push a stream's messages onto any subject inside the JetStream account
 * (docs/decisions/nats-accounts.md). The bucket's stream republishes every change onto its feed
 * (feeds.auth.<key>), which every gateway replica subscribes to; the current entries are read with
 * batched direct gets (history 1: the stream holds exactly each key's latest entry), after the
 * subscription is in place, and the feed's messages are held back meanwhile, then applied in
 * revision order. A republish is delivered at most once, so after a reconnection the replica
 * drops what it holds (the cache's `forget`) and reads the bucket again.
 */
export class AuthBucketFeed implements AuthBucketChanges {
  private subscription: Subscription | undefined;
  private lastRevision = 0;
  private stopped = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  async follow(forget: () => void, apply: (entry: AuthBucketEntry) => void): Promise<void> {
    await this.pass(forget, apply);
    void (async () => {
      for await (const status of this.nc.status()) {
        if (status.type !== 'reconnect' || this.stopped) continue;
        while (!this.stopped) {
          try {
            await this.pass(forget, apply);
            break;
          } catch (err) {
            this.logger.warn({ err }, 'auth bucket: cannot read it again after a reconnection; retrying');
            await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          }
        }
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    this.subscription?.unsubscribe();
  }

  /** Subscribes to the feed, reads the bucket, then applies what the feed brought meanwhile. */
  private async pass(forget: () => void, apply: (entry: AuthBucketEntry) => void): Promise<void> {
    this.subscription?.unsubscribe();
    forget();
    this.lastRevision = 0;
    let held: AuthBucketEntry[] | undefined = [];
    const inOrder = (entry: AuthBucketEntry) => {
      if (entry.revision <= this.lastRevision) return;
      this.lastRevision = entry.revision;
      apply(entry);
    };
    this.subscription = this.nc.subscribe(Subjects.authFeedAll, {
      callback: (err, msg) => {
        if (err) return this.logger.warn({ err }, 'auth bucket feed failed');
        // Only the bucket's republish (an RPC answer this identity asked onto the feed's subject names no stream).
        if (msg.headers?.get('Nats-Stream') !== AuthBucketStream.name) return;
        const entry = fromFeed(msg);
        if (held) held.push(entry);
        else inOrder(entry);
      },
    });
    try {
      await this.nc.flush();
      const jsm = await jetstreamManager(this.nc);
      for (let next = 1; ;) {
        const batch = await batchFrom(jsm, next);
        for (const stored of batch) inOrder(fromStream(stored));
        const last = batch.at(-1);
        if (!last || last.pending === 0) break;
        next = last.seq + 1;
      }
    } catch (err) {
      this.subscription.unsubscribe();
      throw err;
    }
    held.sort((a, b) => a.revision - b.revision).forEach(inOrder);
    held = undefined;
  }
}

/** Up to BATCH entries from revision `seq` on; none when there is none (the server answers 404). */
async function batchFrom(jsm: JetStreamManager, seq: number): Promise<StoredMsg[]> {
  const entries: StoredMsg[] = [];
  try {
    for await (const stored of await jsm.direct.getBatch(AuthBucketStream.name, { seq, batch: BATCH })) {
      entries.push(stored);
    }
  } catch (err) {
    // A JetStreamStatusError, which the library does not export.
    if (!(err instanceof JetStreamError && (err as JetStreamError & { code?: number }).code === 404)) throw err;
  }
  return entries;
}

function fromFeed(msg: Msg): AuthBucketEntry {
  return {
    key: msg.subject.slice(FEED_PREFIX.length),
    revision: Number(msg.headers?.get('Nats-Sequence')),
    deleted: Boolean(msg.headers?.get('KV-Operation')),
    json: () => msg.json(),
  };
}

function fromStream(stored: StoredMsg): AuthBucketEntry {
  return {
    key: stored.subject.slice(BUCKET_PREFIX.length),
    revision: stored.seq,
    deleted: Boolean(stored.header?.get('KV-Operation')),
    json: () => stored.json(),
  };
}
