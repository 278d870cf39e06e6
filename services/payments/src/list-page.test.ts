import type { PaymentStatus } from '@pix/contracts';
import { findPage, listKey, newestFirst, PageWindows, statusKey, type PageFinder } from './list-page';
import type { PaymentDoc } from './model';

const HOUR = 60 * 60 * 1000;
const now = new Date('2026-11-24T12:00:00.000Z');

/** A store's payments as an index would hold them, and the ranges a page asked for. */
function store(createdAgoMs: number[], status: (i: number) => PaymentStatus = () => 'pending') {
  const docs = createdAgoMs.map((ago, i) => {
    const createdAt = new Date(now.getTime() - ago);
    const id = `p${String(i).padStart(6, '0')}`;
    return {
      _id: id,
      status: status(i),
      createdAt,
      listKey: listKey('s', createdAt, id),
      statusKey: statusKey('s', status(i), createdAt, id),
    } as PaymentDoc;
  });
  const ranges: [string, string][] = [];
  /** How many payments each query's range held: what the local engine reads and sorts for it. */
  const read: number[] = [];
  const finder: PageFinder = {
    find: async (field, from, to, skip, limit) => {
      ranges.push([from, to]);
      const held = docs.filter((d) => d[field] >= from && d[field] < to);
      read.push(held.length);
      return held.sort((a, b) => (a[field] < b[field] ? 1 : -1)).slice(skip, skip + limit);
    },
  };
  const newestFirst = [...docs].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1),
  );
  return { docs, finder, ranges, read, newestFirst };
}

describe('findPage', () => {
  it('reads a small store in one query', async () => {
    const { finder, ranges, newestFirst } = store([5, 1, 3].map((m) => m * HOUR));
    const page = await findPage(finder, new PageWindows(), 's', { page: 1, limit: 2 }, 3, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(0, 2).map((d) => d._id));
    expect(ranges).toEqual([['s|', 's|\u{10FFFF}']]);
  });

  it("finds a large store's first page with no hint from a second back, widening by the pace it sees", async () => {
    // 3,000 payments, one a minute.
    const { finder, ranges, read, newestFirst } = store(Array.from({ length: 3000 }, (_, i) => i * 60_000));
    const page = await findPage(finder, new PageWindows(), 's', { page: 1, limit: 50 }, 3000, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(0, 50).map((d) => d._id));
    expect(ranges[0]?.[0]).toBe(`s|${new Date(now.getTime() - 1000).toISOString()}`);
    // 1 s (1: a hundred times too narrow for two pages), 100 s (2: fifty times), 5,000 s (84 ≥ 50).
    expect(read).toEqual([1, 2, 84]);
  });

  it('widens the window until it holds the page, deep pages included', async () => {
    const { finder, read, newestFirst } = store(Array.from({ length: 3000 }, (_, i) => i * 60_000));
    const page = await findPage(finder, new PageWindows(), 's', { page: 10, limit: 50 }, 3000, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(450, 500).map((d) => d._id));
    // 10 s, 160 s, 2,560 s: none of page 10 (held at most the 450 skipped); 40,960 s (683 ≥ 500).
    expect(read).toEqual([1, 3, 43, 683]);
  });

  it('ends on the whole store for the last, partial page of a store whose newest payments are old', async () => {
    const { finder, newestFirst } = store(Array.from({ length: 1500 }, (_, i) => 400 * 24 * HOUR + i * HOUR));
    const page = await findPage(finder, new PageWindows(), 's', { page: 30, limit: 50 }, 1500, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(1450, 1500).map((d) => d._id));
    expect(await findPage(finder, new PageWindows(), 's', { page: 31, limit: 50 }, 1500, now)).toEqual([]);
  });

  it('reaches a store quiet for a year, with no hint, in a few empty windows', async () => {
    const { finder, read, newestFirst } = store(Array.from({ length: 1500 }, (_, i) => 400 * 24 * HOUR + i * HOUR));
    const page = await findPage(finder, new PageWindows(), 's', { page: 1, limit: 50 }, 1500, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(0, 50).map((d) => d._id));
    // 1 s, 16 s, 256 s, 68 min, 18 h, 12 d, 194 d: empty; 8.5 years: the store.
    expect(read).toEqual([0, 0, 0, 0, 0, 0, 0, 1500]);
  });

  it('pages one status by its own key, newest first, ties by id', async () => {
    const at = Array.from({ length: 2000 }, (_, i) => Math.floor(i / 2) * 60_000);
    const statusOf = (i: number): PaymentStatus => (i % 3 === 0 ? 'approved' : 'pending');
    const { finder, newestFirst } = store(at, statusOf);
    const approved = newestFirst.filter((d) => d.status === 'approved');
    const page = await findPage(
      finder,
      new PageWindows(),
      's',
      { page: 2, limit: 30, status: 'approved' },
      approved.length,
      now,
    );
    expect(page.map((d) => d._id)).toEqual(approved.slice(30, 60).map((d) => d._id));
  });

  it("follows a burst, cold: a first page reads a second of it, not the hour's 20,000, and so do the next", async () => {
    // 20,000 payments in the last two minutes, 3,000 spread over the month before.
    const burst = Array.from({ length: 20_000 }, (_, i) => (i * 120_000) / 20_000);
    const month = Array.from({ length: 3000 }, (_, i) => 2 * HOUR + i * 15 * 60_000);
    const { finder, read, newestFirst } = store([...burst, ...month]);
    const windows = new PageWindows();
    const first = await findPage(finder, windows, 's', { page: 1, limit: 50 }, 23_000, now);
    expect(first.map((d) => d._id)).toEqual(newestFirst.slice(0, 50).map((d) => d._id));
    // 20,000 in 120 s: the first, hint-less, window of a second holds 167.
    expect(read).toEqual([167]);

    read.length = 0;
    const again = await findPage(finder, windows, 's', { page: 1, limit: 50 }, 23_000, now);
    expect(again.map((d) => d._id)).toEqual(newestFirst.slice(0, 50).map((d) => d._id));
    expect(read).toHaveLength(1);
    expect(read[0]).toBeLessThanOrEqual(200);

    read.length = 0;
    const third = await findPage(finder, windows, 's', { page: 3, limit: 50 }, 23_000, now);
    expect(third.map((d) => d._id)).toEqual(newestFirst.slice(100, 150).map((d) => d._id));
    expect(read).toHaveLength(1);
    expect(read[0]).toBeLessThanOrEqual(400);
  });

  it('widens from a hint that became too narrow, and counts the time a quiet store has been quiet', async () => {
    const { finder, read, newestFirst } = store(Array.from({ length: 3000 }, (_, i) => i * 1000 + 500));
    const windows = new PageWindows();
    // A hint from a faster time: 50 payments within the last 100 ms.
    windows.record('s|', 1, 100, now.getTime());
    const page = await findPage(finder, windows, 's', { page: 1, limit: 50 }, 3000, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(0, 50).map((d) => d._id));
    // 1 s (1: a hundred times too narrow for two pages), 100 s (full).
    expect(read).toEqual([1, 100]);

    // An hour later with nothing new, the window starts an hour further back and finds the page at once.
    read.length = 0;
    const later = new Date(now.getTime() + HOUR);
    const quiet = await findPage(finder, windows, 's', { page: 1, limit: 50 }, 3000, later);
    expect(quiet.map((d) => d._id)).toEqual(page.map((d) => d._id));
    expect(read).toHaveLength(1);
  });

  it('keeps one hint per list: a status has its own', async () => {
    const at = Array.from({ length: 4000 }, (_, i) => i * 1000 + 500);
    const { finder, read } = store(at, (i) => (i % 40 === 0 ? 'approved' : 'pending'));
    const windows = new PageWindows();
    await findPage(finder, windows, 's', { page: 1, limit: 10 }, 4000, now);
    read.length = 0;
    // The whole list's pace (one a second) would be 40 times too narrow for approved ones: the
    // first approved page starts with no hint (1 s: 1, 20 s: 1, 400 s: 10), the next looks in twice
    // the ten's 360 s (19).
    await findPage(finder, windows, 's', { page: 1, limit: 10, status: 'approved' }, 1001, now);
    await findPage(finder, windows, 's', { page: 1, limit: 10, status: 'approved' }, 1001, now);
    expect(read).toEqual([1, 1, 10, 19]);
  });
});

describe('newestFirst between bounds', () => {
  it('pages only the range, windows back from its end, and reads it whole once the windows pass its start', async () => {
    // 3,000 items, one a minute; the range is the 24 hours that ended an hour ago.
    const { docs, read } = store(Array.from({ length: 3000 }, (_, i) => i * 60_000));
    const until = new Date(now.getTime() - HOUR);
    const since = new Date(until.getTime() - 24 * HOUR);
    const find = async (from: string, to: string, skip: number, limit: number) => {
      const held = docs.filter((d) => d.listKey >= from && d.listKey < to);
      read.push(held.length);
      return held.sort((a, b) => (a.listKey < b.listKey ? 1 : -1)).slice(skip, skip + limit);
    };
    const inRange = docs
      .filter((d) => d.createdAt >= since && d.createdAt < until)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const bounds = { since, until, now };

    const first = await newestFirst(find, new PageWindows(), 's|', { page: 1, limit: 50 }, 1440, bounds);
    expect(first.map((d) => d._id)).toEqual(inRange.slice(0, 50).map((d) => d._id));
    // Back from the range's end (exclusive), not from now: 1 s (0), 16 s (0), 256 s (4), 6,400 s (106 ≥ 50).
    expect(read).toEqual([0, 0, 4, 106]);

    // The last page, partial: the windows reach the range's start, then one query reads the range.
    read.length = 0;
    const last = await newestFirst(find, new PageWindows(), 's|', { page: 29, limit: 50 }, 1440, bounds);
    expect(last.map((d) => d._id)).toEqual(inRange.slice(1400).map((d) => d._id));
    expect(read.at(-1)).toBe(1440);
  });
});
