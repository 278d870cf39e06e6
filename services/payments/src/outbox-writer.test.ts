import type { OutboxEntry } from './model';
import { OutboxWriter } from './outbox-writer';

const entry = (by: string | undefined, at: Date): OutboxEntry => ({
  subject: 'payments.counts.s.all',
  msgId: `m-${at.getTime()}`,
  at,
  ...(by !== undefined && { by }),
});
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('OutboxWriter', () => {
  it('has published through the earliest write still holding messages', async () => {
    const writer = new OutboxWriter();
    const first = writer.hold();
    await tick();
    const second = writer.hold();
    expect(writer.publishedThrough()).toEqual(first.at);
    expect(writer.published(entry(writer.id, first.at))).toBe(false);
    first.release();
    expect(writer.publishedThrough()).toEqual(second.at);
    expect(writer.published(entry(writer.id, first.at))).toBe(true);
    expect(writer.published(entry(writer.id, second.at))).toBe(false);
    second.release();
    expect(writer.owes()).toBe(false);
  });

  it('keeps an unsettled write owed until a pass releases it', () => {
    const writer = new OutboxWriter();
    expect(writer.unsettled()).toBeUndefined();
    const hold = writer.hold();
    hold.unsettle();
    const unsettled = writer.unsettled();
    expect(unsettled?.from).toEqual(hold.at);
    expect(writer.owes()).toBe(true);
    unsettled?.release();
    expect(writer.owes()).toBe(false);
  });

  it("believes another writer's word, or its being gone, and nothing of a writer it does not know", () => {
    const writer = new OutboxWriter();
    const at = new Date('2026-11-29T00:00:00Z');
    const later = new Date('2026-11-29T00:00:05Z');
    expect(writer.strangers([entry('w1', at), entry('w2', at), entry(undefined, at)])).toEqual(['w1', 'w2']);
    expect(writer.published(entry('w1', at))).toBe(false);
    writer.learn([
      { _id: 'w1', publishedThrough: later, gone: false },
      { _id: 'w2', publishedThrough: at, gone: true },
    ]);
    expect(writer.strangers([entry('w1', at), entry('w2', at)])).toEqual([]);
    expect([writer.published(entry('w1', at)), writer.published(entry('w1', later))]).toEqual([true, false]);
    expect(writer.published(entry('w2', later))).toBe(true);
    // Stored before messages named their writer: the relay's to publish and remove.
    expect(writer.published(entry(undefined, at))).toBe(false);
  });
});
