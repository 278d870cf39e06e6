import { Subjects } from '@pix/contracts';
import { createLogger, Counter, Gauge, Registry } from '@pix/observability';
import { capturePublished } from '../../../libs/messaging/src/testing/published';
import type { PixEntry, ReceivedPix } from '@pix/api-pix';
import type { PixProvider, ReceivedPixPage } from './providers/provider';
import { MAX_WINDOW_MS, nextWindow, Reconciliation, type ReconciliationSettings } from './reconciliation';
import type { ReconciliationCursor, ReconciliationState } from './reconciliation-cursor';
import { ToldFacts } from './told-facts';

const SETTINGS: ReconciliationSettings = { intervalMs: 60_000, overlapMs: 120_000 };
const PAGE = 100;

/** A PSP that lists the Pix it holds, a hundred a page, and can be made to fail on a page. */
class ListingPsp {
  readonly asked: { from: Date; to: Date; page: number }[] = [];
  failOnPage: number | null = null;
  constructor(readonly pix: ReceivedPix[]) {}

  listReceivedPix(window: { from: Date; to: Date }, page: number): Promise<ReceivedPixPage> {
    this.asked.push({ ...window, page });
    if (page === this.failOnPage) return Promise.reject(new Error('the PSP is away'));
    const inWindow = this.pix.filter((p) => {
      const at = new Date(p.horario).getTime();
      return at >= window.from.getTime() && at <= window.to.getTime();
    });
    return Promise.resolve({
      pix: inWindow.slice(page * PAGE, (page + 1) * PAGE),
      pages: Math.ceil(inWindow.length / PAGE),
    });
  }
}

class MemoryCursor {
  state: ReconciliationState | null = null;
  read() {
    return Promise.resolve(this.state);
  }
  advance(through: Date, completedAt: Date) {
    const max = (a: Date | undefined, b: Date) => (a && a > b ? a : b);
    this.state = {
      _id: 'received-pix',
      through: max(this.state?.through, through),
      completedAt: max(this.state?.completedAt, completedAt),
    };
    return Promise.resolve();
  }
}

function pixAt(n: number, at: Date): PixEntry {
  return { endToEndId: `E${String(n).padStart(31, '0')}`, txid: `t${n}`, valor: '10.00', horario: at.toISOString() };
}

function setup(pix: ReceivedPix[]) {
  const registry = new Registry();
  const metrics = {
    found: new Counter({
      name: 'found',
      help: 'h',
      labelNames: ['connection', 'source'] as const,
      registers: [registry],
    }),
    listed: new Counter({ name: 'listed', help: 'h', labelNames: ['connection'] as const, registers: [registry] }),
    runs: new Counter({
      name: 'runs',
      help: 'h',
      labelNames: ['connection', 'outcome'] as const,
      registers: [registry],
    }),
    completedAt: new Gauge({
      name: 'completed',
      help: 'h',
      labelNames: ['connection'] as const,
      registers: [registry],
    }),
  };
  const psp = new ListingPsp(pix);
  const cursor = new MemoryCursor();
  const { js, published } = capturePublished();
  const told = new ToldFacts(10 * 60_000);
  /** One run of a replica, as its Periodic starts it. */
  const run = async () => {
    const reconciliation = new Reconciliation(
      { name: 'test', livemode: false, provider: psp as unknown as PixProvider },
      js,
      told,
      cursor as unknown as ReconciliationCursor,
      SETTINGS,
      metrics,
      createLogger('test', 'silent'),
    );
    reconciliation.start();
    await reconciliation.stop();
  };
  const count = async (name: string, labels: Record<string, string>) =>
    (await registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, l]) => v.labels[k] === l),
    )?.value ?? 0;
  return { psp, cursor, published, run, count };
}

describe('the window a reconciliation reads', () => {
  const now = new Date('2026-11-26T12:00:00Z');

  it('starts an interval back on the first run, and an overlap before the cursor after', () => {
    expect(nextWindow(null, now, SETTINGS)).toEqual({ from: new Date('2026-11-26T11:57:00Z'), to: now, behind: false });
    const through = new Date('2026-11-26T11:59:00Z');
    expect(nextWindow(through, now, SETTINGS)).toEqual({
      from: new Date('2026-11-26T11:57:00Z'),
      to: now,
      behind: false,
    });
  });

  it('reads an hour at a time when the cursor is far behind (a long stop), and says it is behind', () => {
    const dayBefore = new Date(now.getTime() - 24 * 3600_000);
    const window = nextWindow(dayBefore, now, SETTINGS);
    expect(window.to.getTime() - window.from.getTime()).toBe(MAX_WINDOW_MS);
    expect(window.behind).toBe(true);
  });
});

describe('a reconciliation with the PSP', () => {
  it('feeds every page of the window as facts, each Pix once, and moves the cursor to its end', async () => {
    const recent = new Date(Date.now() - 30_000);
    const { psp, cursor, published, run, count } = setup(Array.from({ length: 250 }, (_, n) => pixAt(n, recent)));
    await run();
    expect(psp.asked.map((a) => a.page)).toEqual([0, 1, 2]);
    expect(published).toHaveLength(250);
    expect(published.every((p) => p.subject === Subjects.pixPaid)).toBe(true);
    expect(new Set(published.map((p) => p.id)).size).toBe(250);
    expect(cursor.state?.through).toEqual(psp.asked[0]?.to);
    expect(await count('found', { source: 'listing' })).toBe(250);
    expect(await count('listed', {})).toBe(250);
    expect(await count('runs', { outcome: 'completed' })).toBe(1);
  });

  it("passes over a listed Pix of no charge (paid to the key, no txid): the window's others are fed", async () => {
    const recent = new Date(Date.now() - 30_000);
    const { txid: _none, ...toTheKey } = pixAt(1, recent);
    const { published, cursor, run } = setup([toTheKey, pixAt(2, recent)]);
    await run();
    expect(published.map((p) => p.id)).toEqual([pixAt(2, recent).endToEndId]);
    expect(cursor.state).not.toBeNull();
  });

  it('skips its turn when another replica just completed one', async () => {
    const { psp, run, count } = setup([]);
    await run();
    await run();
    expect(psp.asked).toHaveLength(1);
    expect(await count('runs', { outcome: 'skipped' })).toBe(1);
  });

  it('finds nothing new in a window it read before: the overlap makes no second fact', async () => {
    const recent = new Date(Date.now() - 30_000);
    const { cursor, published, run, count } = setup([pixAt(1, recent), pixAt(2, recent)]);
    await run();
    // The next interval: the cursor is older than half an interval, its window overlaps the last.
    cursor.state = { ...cursor.state!, completedAt: new Date(Date.now() - SETTINGS.intervalMs) };
    await run();
    expect(published).toHaveLength(2);
    expect(await count('found', { source: 'listing' })).toBe(2);
    expect(await count('runs', { outcome: 'completed' })).toBe(2);
  });

  it('leaves the cursor where it was when the PSP fails on a page: the next run reads that window again', async () => {
    const recent = new Date(Date.now() - 30_000);
    const { psp, cursor, published, run, count } = setup(Array.from({ length: 150 }, (_, n) => pixAt(n, recent)));
    const before = new Date(Date.now() - 40_000);
    cursor.state = { _id: 'received-pix', through: before, completedAt: new Date(Date.now() - 120_000) };
    psp.failOnPage = 1;
    await run();
    expect(cursor.state.through).toEqual(before);
    expect(await count('runs', { outcome: 'failed' })).toBe(1);
    expect(published).toHaveLength(100);

    psp.failOnPage = null;
    await run();
    expect(psp.asked.at(-1)?.from).toEqual(new Date(before.getTime() - SETTINGS.overlapMs));
    expect(published).toHaveLength(150);
    expect(cursor.state.through.getTime()).toBeGreaterThan(before.getTime());
  });
});
