import { PIX_READ_MAX, statementDay, type ListedPix, type StatementDifference } from '@pix/contracts';
import type { BalanceMovement } from './model';
import { compareDay } from './statement-comparison';

/**
 * The statement check's day, a window at a time (docs/decisions/statement-check.md): the PSP's
 * listing and the platform's movements of one span of the day are in memory at once, never the
 * whole day's, so a day of a million Pix is checked in the memory of a few thousand.
 */

/** A span of the day, [from, to). */
export interface DayWindow {
  from: Date;
  to: Date;
}

/** A window's listing at the PSP: its Pix; more than one window may hold (it is halved); or no such connection. */
export type WindowListing = { pix: ListedPix[] } | 'too_many' | 'not_configured';

/** What the check reads of one connection. */
export interface DaySources {
  /**
   * The PSP's Pix of the window, every page (a PSP's window may hold its ends both); 'too_many' when
   * it holds more than a window may and `mayHalve`: a window as narrow as NARROWEST_WINDOW_MS is
   * taken whole however full.
   */
  listed(window: DayWindow, mayHalve: boolean): Promise<WindowListing>;
  /** The connection's movements dated in the window. */
  movedWithin(window: DayWindow): Promise<BalanceMovement[]>;
  /** Every movement of these Pix on the connection, whatever day. */
  movementsOf(endToEndIds: string[]): Promise<BalanceMovement[]>;
  /** These Pix read one by one at the PSP (at most PIX_READ_MAX), and those it does not have. */
  read(endToEndIds: string[]): Promise<{ pix: ListedPix[]; unknown: string[] }>;
}

/** What the day's comparison found: the Pix at the PSP and the movements compared, and what differs. */
export interface DayCompared {
  pixAtPsp: number;
  movements: number;
  differences: StatementDifference[];
}

/** A window is halved no narrower than this (a minute of a very busy PSP is read whole). */
export const NARROWEST_WINDOW_MS = 60_000;

/**
 * Compares the day, a window at a time, as compareDay compares it whole. Each Pix is compared once,
 * as a whole (with its movements of any day), in one window: that of its first movement of the day,
 * or, with none that day, that of its listing. So a refund in the afternoon of a morning's Pix, a
 * Pix whose movement is dated a little after the PSP's `horario` (across a window's edge), and an
 * older Pix refunded twice today are each compared once, with no memory kept from one window to the
 * next. null when the adapter has no such connection.
 */
export async function compareDayByWindows(
  day: string,
  whole: DayWindow,
  sources: DaySources,
): Promise<DayCompared | null> {
  const found: DayCompared = { pixAtPsp: 0, movements: 0, differences: [] };
  if (!(await compareWindow(day, whole, sources, found))) return null;
  // As compareDay orders them: by Pix (each Pix's differences come from one window, in their order).
  found.differences.sort((a, b) => (a.endToEndId < b.endToEndId ? -1 : a.endToEndId > b.endToEndId ? 1 : 0));
  return found;
}

async function compareWindow(
  day: string,
  window: DayWindow,
  sources: DaySources,
  found: DayCompared,
): Promise<boolean> {
  const width = window.to.getTime() - window.from.getTime();
  const listing = await sources.listed(window, width > NARROWEST_WINDOW_MS);
  if (listing === 'not_configured') return false;
  if (listing === 'too_many') {
    const middle = new Date(window.from.getTime() + Math.floor(width / 2));
    if (!(await compareWindow(day, { from: window.from, to: middle }, sources, found))) return false;
    return compareWindow(day, { from: middle, to: window.to }, sources, found);
  }
  const within = (at: Date) => at >= window.from && at < window.to;
  const listed = listing.pix.filter((pix) => within(new Date(pix.horario)));
  const moved = await sources.movedWithin(window);
  const ids = [...new Set([...listed.map((pix) => pix.endToEndId), ...moved.map((m) => m.endToEndId)])];
  const movements = ids.length > 0 ? await sources.movementsOf(ids) : [];

  const firstOfDay = new Map<string, number>();
  for (const m of movements) {
    if (statementDay(m.createdAt) !== day) continue;
    const at = m.createdAt.getTime();
    if (at < (firstOfDay.get(m.endToEndId) ?? Infinity)) firstOfDay.set(m.endToEndId, at);
  }
  const comparedHere = (id: string) => {
    const first = firstOfDay.get(id);
    return first === undefined || within(new Date(first));
  };
  const listedIds = new Set(listed.map((pix) => pix.endToEndId));
  const toRead = ids.filter((id) => !listedIds.has(id) && comparedHere(id));
  const read: ListedPix[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < toRead.length; i += PIX_READ_MAX) {
    const reply = await sources.read(toRead.slice(i, i + PIX_READ_MAX));
    read.push(...reply.pix);
    unknown.push(...reply.unknown);
  }

  const here = new Set([...listed.map((pix) => pix.endToEndId).filter(comparedHere), ...toRead]);
  const compared = movements.filter((m) => here.has(m.endToEndId));
  found.differences.push(
    ...compareDay({ listed: listed.filter((pix) => here.has(pix.endToEndId)), read, unknown }, compared),
  );
  // The day's listing counts each of its Pix once (here or in its own window); a Pix read counts
  // when no window of the day lists it.
  found.pixAtPsp += listed.length + read.filter((pix) => statementDay(new Date(pix.horario)) !== day).length;
  found.movements += compared.length;
  return true;
}
