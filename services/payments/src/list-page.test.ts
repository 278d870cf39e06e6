import type { PaymentStatus } from '@pix/contracts';
import { findPage, listKey, statusKey, type PageFinder } from './list-page';
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
  const finder: PageFinder = {
    find: async (field, from, to, skip, limit) => {
      ranges.push([from, to]);
      return docs
        .filter((d) => d[field] >= from && d[field] < to)
        .sort((a, b) => (a[field] < b[field] ? 1 : -1))
        .slice(skip, skip + limit);
    },
  };
  const newestFirst = [...docs].sort(
    (a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : -1),
  );
  return { docs, finder, ranges, newestFirst };
}

describe('findPage', () => {
  it('reads a small store in one query', async () => {
    const { finder, ranges, newestFirst } = store([5, 1, 3].map((m) => m * HOUR));
    const page = await findPage(finder, 's', { page: 1, limit: 2 }, 3, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(0, 2).map((d) => d._id));
    expect(ranges).toEqual([['s|', 's|\u{10FFFF}']]);
  });

  it("finds a large store's first page in the last hour's window when it holds the page", async () => {
    // 3,000 payments, one a minute: the last hour holds 60.
    const { finder, ranges, newestFirst } = store(Array.from({ length: 3000 }, (_, i) => i * 60_000));
    const page = await findPage(finder, 's', { page: 1, limit: 50 }, 3000, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(0, 50).map((d) => d._id));
    expect(ranges).toHaveLength(1);
    expect(ranges[0]?.[0]).toBe(`s|${new Date(now.getTime() - HOUR).toISOString()}`);
  });

  it('widens the window until it holds the page, deep pages included', async () => {
    const { finder, ranges, newestFirst } = store(Array.from({ length: 3000 }, (_, i) => i * 60_000));
    const page = await findPage(finder, 's', { page: 10, limit: 50 }, 3000, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(450, 500).map((d) => d._id));
    // 1 h (60), 4 h (240), 16 h (960 ≥ 500).
    expect(ranges).toHaveLength(3);
  });

  it('ends on the whole store for the last, partial page of a store whose newest payments are old', async () => {
    const { finder, newestFirst } = store(Array.from({ length: 1500 }, (_, i) => 400 * 24 * HOUR + i * HOUR));
    const page = await findPage(finder, 's', { page: 30, limit: 50 }, 1500, now);
    expect(page.map((d) => d._id)).toEqual(newestFirst.slice(1450, 1500).map((d) => d._id));
    expect(await findPage(finder, 's', { page: 31, limit: 50 }, 1500, now)).toEqual([]);
  });

  it('pages one status by its own key, newest first, ties by id', async () => {
    const at = Array.from({ length: 2000 }, (_, i) => Math.floor(i / 2) * 60_000);
    const statusOf = (i: number): PaymentStatus => (i % 3 === 0 ? 'approved' : 'pending');
    const { finder, newestFirst } = store(at, statusOf);
    const approved = newestFirst.filter((d) => d.status === 'approved');
    const page = await findPage(finder, 's', { page: 2, limit: 30, status: 'approved' }, approved.length, now);
    expect(page.map((d) => d._id)).toEqual(approved.slice(30, 60).map((d) => d._id));
  });
});
