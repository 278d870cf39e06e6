import { randomUUID } from 'node:crypto';
import type { OutboxEntry, OutboxWriterDoc } from './model';

/**
 * A write of this process from before it stamps its messages until they are published, or until
 * it is known not to have landed.
 */
export interface Hold {
  /** Its messages are stamped at this instant. */
  readonly at: Date;
  /** Nothing of the write is owed any more: its messages are published, or it did not land. */
  release(): void;
  /** The write failed without saying whether it landed: a relay pass looks for its messages. */
  unsettle(): void;
}

interface HoldState {
  at: Date;
  unsettled: boolean;
}

/**
 * This process as a writer of outboxes, and what it knows of the others
 * (docs/decisions/outbox-publication-by-writer.md). Every message a write stores in a payment's
 * outbox names its writer; a writer publishes its own messages, and says how far it has: every
 * message it stamped before `publishedThrough()` is published. So recording a publish writes
 * nothing: the messages stay in their payment until its next write leaves them out, and only the
 * messages of a writer that died, or of a write whose outcome is unknown, are looked for again.
 */
export class OutboxWriter {
  readonly id = `writer_${randomUUID().replace(/-/g, '')}`;
  private readonly holds = new Set<HoldState>();
  private readonly others = new Map<string, Pick<OutboxWriterDoc, 'publishedThrough' | 'gone'>>();

  /** Opens a write: its messages are owed until it is released. */
  hold(): Hold {
    const state: HoldState = { at: new Date(), unsettled: false };
    this.holds.add(state);
    return {
      at: state.at,
      release: () => this.holds.delete(state),
      unsettle: () => {
        state.unsettled = true;
      },
    };
  }

  /** Whether a write of this process still owes messages (under way, waiting to be published again, or unsettled). */
  owes(): boolean {
    return this.holds.size > 0;
  }

  /** Every message this process stamped before this instant is published (or was never stored). */
  publishedThrough(): Date {
    let earliest = Date.now();
    for (const { at } of this.holds) earliest = Math.min(earliest, at.getTime());
    return new Date(earliest);
  }

  /**
   * The writes whose outcome is unknown so far: the earliest of their stamps, and how to release
   * them once their messages, if stored, are published.
   */
  unsettled(): { from: Date; release: () => void } | undefined {
    const unsettled = [...this.holds].filter((hold) => hold.unsettled);
    if (unsettled.length === 0) return undefined;
    return {
      from: new Date(Math.min(...unsettled.map((hold) => hold.at.getTime()))),
      release: () => unsettled.forEach((hold) => this.holds.delete(hold)),
    };
  }

  /** What the other writers say, as read from their records. */
  learn(writers: Pick<OutboxWriterDoc, '_id' | 'publishedThrough' | 'gone'>[]): void {
    for (const { _id, publishedThrough, gone } of writers) {
      if (_id !== this.id) this.others.set(_id, { publishedThrough, gone });
    }
  }

  /** The writers an outbox names that this process has not heard of. */
  strangers(outbox: OutboxEntry[]): string[] {
    const named = outbox.map((entry) => entry.by).filter((by): by is string => by !== undefined);
    return [...new Set(named)].filter((by) => by !== this.id && !this.others.has(by));
  }

  /**
   * Whether a message of an outbox is known to be published, by its writer's word. One stored
   * before messages named their writer is not known to be (the relay publishes and removes it).
   */
  published(entry: OutboxEntry): boolean {
    if (entry.by === undefined) return false;
    const stamped = new Date(entry.at).getTime();
    if (entry.by === this.id) return stamped < this.publishedThrough().getTime();
    const writer = this.others.get(entry.by);
    return writer !== undefined && (writer.gone || stamped < writer.publishedThrough.getTime());
  }
}
