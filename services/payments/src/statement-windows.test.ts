import { dayStart, nextDay, previousDay, type ListedPix } from '@pix/contracts';
import type { BalanceMovement } from './model';
import { compareDay } from './statement-comparison';
import { compareDayByWindows, NARROWEST_WINDOW_MS, type DaySources, type DayWindow } from './statement-windows';
import { movementOf } from './testing/movements';

const DAY = '2026-11-20';
const START = dayStart(DAY).getTime();
const DAY_MS = dayStart(nextDay(DAY)).getTime() - START;
const at = (ms: number) => new Date(START + ms);

/** A small PRNG, so that a failing day can be made again from its seed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface World {
  /** Every Pix the PSP has, whatever day (GET /pix lists by horario; GET /pix/{e2eid} reads any). */
  psp: ListedPix[];
  movements: BalanceMovement[];
}

/** A Pix received (positive) or a merchant's refund of it (negative). */
function movement(endToEndId: string, amountCents: number, createdAt: Date, n: number): BalanceMovement {
  return movementOf(amountCents > 0 ? 'pix_received' : 'refund', endToEndId, amountCents, n, createdAt);
}

/**
 * A day of a busy PSP: Pix all day, most with their movement at their `horario`, some up to ten
 * minutes later (across a window's edge, or the day's), some refunded later the same day or the
 * next, some with a wrong amount or a devolução the platform never recorded; Pix of the day before
 * refunded today (once or twice), Pix the PSP listed that no payment knows, and Pix the platform has
 * that the PSP does not.
 */
function busyDay(seed: number, count: number): World {
  const next = random(seed);
  const psp: ListedPix[] = [];
  const movements: BalanceMovement[] = [];
  let n = 0;
  const id = (kind: string) => `E${kind}${String(n++).padStart(28, '0')}`;
  for (let i = 0; i < count; i++) {
    const endToEndId = id('day');
    const horario = at(Math.floor(next() * DAY_MS));
    const amountCents = 500 + Math.floor(next() * 10_000);
    const roll = next();
    const pix: ListedPix = { endToEndId, txid: null, amountCents, horario: horario.toISOString(), devolucoes: [] };
    psp.push(pix);
    if (roll < 0.03) continue; // a Pix no payment knows
    const skew = roll < 0.15 ? Math.floor(next() * 600_000) : 0;
    movements.push(
      movement(endToEndId, roll < 0.18 ? amountCents + 1 : amountCents, new Date(horario.getTime() + skew), n++),
    );
    if (roll > 0.7) {
      const refundAt = new Date(horario.getTime() + Math.floor(next() * DAY_MS));
      const refunded = Math.min(amountCents, 100 + Math.floor(next() * 1_000));
      pix.devolucoes.push({ id: `D${n}`, amountCents: refunded, status: 'DEVOLVIDO' });
      if (roll < 0.95) movements.push(movement(endToEndId, -refunded, refundAt, n++));
    }
  }
  for (let i = 0; i < count / 20; i++) {
    // A Pix of the day before (listed that day, not this one), refunded today once or twice.
    const endToEndId = id('old');
    const horario = new Date(START - 1 - Math.floor(next() * DAY_MS));
    const pix: ListedPix = {
      endToEndId,
      txid: null,
      amountCents: 9_000,
      horario: horario.toISOString(),
      devolucoes: [],
    };
    psp.push(pix);
    movements.push(movement(endToEndId, 9_000, horario, n++));
    for (const share of next() < 0.5 ? [1_000] : [1_000, 2_000]) {
      pix.devolucoes.push({ id: `D${n}`, amountCents: share, status: 'DEVOLVIDO' });
      movements.push(movement(endToEndId, -share, at(Math.floor(next() * DAY_MS)), n++));
    }
    // The platform's Pix the PSP does not have: in today, and refunded later today.
    const lost = id('lost');
    const received = Math.floor(next() * DAY_MS);
    movements.push(movement(lost, 700, at(received), n++));
    if (next() < 0.5)
      movements.push(movement(lost, -200, at(received + Math.floor(next() * (DAY_MS - received))), n++));
  }
  return { psp, movements };
}

/** The check's reads over a world, with at most `maxListed` Pix a window (in pages of ten). */
function sourcesOver(world: World, maxListed: number) {
  const held: number[] = [];
  const within = (t: Date, w: DayWindow, inclusive: boolean) => t >= w.from && (inclusive ? t <= w.to : t < w.to);
  const sources: DaySources = {
    listed: async (window, mayHalve) => {
      // A PSP's window holds both its ends.
      const pix = world.psp.filter((p) => within(new Date(p.horario), window, true));
      if (mayHalve && Math.ceil(pix.length / 10) > Math.ceil(maxListed / 10)) return 'too_many';
      held.push(pix.length);
      return { pix };
    },
    movedWithin: async (window) => world.movements.filter((m) => within(m.createdAt, window, false)),
    movementsOf: async (ids) => world.movements.filter((m) => ids.includes(m.endToEndId)),
    read: async (ids) => ({
      pix: world.psp.filter((p) => ids.includes(p.endToEndId)),
      unknown: ids.filter((id) => !world.psp.some((p) => p.endToEndId === id)),
    }),
  };
  return { sources, held };
}

/** The day compared whole, in memory, as the check did before it had windows. */
function wholeDay(world: World) {
  const whole = { from: at(0), to: at(DAY_MS) };
  const listed = world.psp.filter((p) => new Date(p.horario) >= whole.from && new Date(p.horario) < whole.to);
  const listedIds = new Set(listed.map((p) => p.endToEndId));
  const onDay = world.movements.filter((m) => m.createdAt >= whole.from && m.createdAt < whole.to);
  const toRead = [...new Set(onDay.map((m) => m.endToEndId))].filter((id) => !listedIds.has(id));
  const read = world.psp.filter((p) => toRead.includes(p.endToEndId));
  const unknown = toRead.filter((id) => !world.psp.some((p) => p.endToEndId === id));
  const ids = new Set([...listedIds, ...toRead]);
  const movements = world.movements.filter((m) => ids.has(m.endToEndId));
  return {
    pixAtPsp: listed.length + read.length,
    movements: movements.length,
    differences: compareDay({ listed, read, unknown }, movements),
  };
}

describe("the statement check's day, a window at a time", () => {
  it.each([1, 2, 3])(
    'finds what the whole day compared at once finds, holding a window at a time (seed %i)',
    async (seed) => {
      const world = busyDay(seed, 1_500);
      const expected = wholeDay(world);
      expect(expected.differences.length).toBeGreaterThan(50);

      const { sources, held } = sourcesOver(world, 100);
      const found = await compareDayByWindows(DAY, { from: at(0), to: at(DAY_MS) }, sources);

      expect(found).toEqual(expected);
      expect(held.length).toBeGreaterThan(15);
      expect(Math.max(...held)).toBeLessThanOrEqual(100);
    },
  );

  it('takes a day of few Pix in one window', async () => {
    const world = busyDay(7, 40);
    const { sources, held } = sourcesOver(world, 100);
    expect(await compareDayByWindows(DAY, { from: at(0), to: at(DAY_MS) }, sources)).toEqual(wholeDay(world));
    expect(held).toEqual([
      world.psp.filter((p) => p.horario >= at(0).toISOString() && p.horario < at(DAY_MS).toISOString()).length,
    ]);
  });

  it('reads a minute whole however full, rather than halving it for ever', async () => {
    const busy = at(10 * 3_600_000).getTime();
    const psp = Array.from({ length: 30 }, (_, i) => ({
      endToEndId: `Eburst${String(i).padStart(26, '0')}`,
      txid: null,
      amountCents: 500,
      horario: new Date(busy + i).toISOString(),
      devolucoes: [],
    }));
    const world = { psp, movements: psp.map((p, i) => movement(p.endToEndId, 500, new Date(p.horario), i)) };
    const { sources, held } = sourcesOver(world, 10);
    const found = await compareDayByWindows(DAY, { from: at(0), to: at(DAY_MS) }, sources);
    expect(found).toEqual({ pixAtPsp: 30, movements: 30, differences: [] });
    expect(held).toContain(30);
    expect(NARROWEST_WINDOW_MS).toBe(60_000);
  });

  it('is null for a connection the adapter does not have', async () => {
    const sources: DaySources = {
      listed: async () => 'not_configured',
      movedWithin: async () => [],
      movementsOf: async () => [],
      read: async () => ({ pix: [], unknown: [] }),
    };
    expect(await compareDayByWindows(previousDay(DAY), { from: at(0), to: at(DAY_MS) }, sources)).toBeNull();
  });
});
