import type { ModeName } from '@pix/contracts';
import { withTraceCarrier, type JetStreamClient } from '@pix/messaging';
import type { Counter, Gauge, Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';
import { receivePix } from './callbacks';
import type { PixProvider } from './providers/provider';
import type { ReconciliationCursor } from './reconciliation-cursor';
import type { ToldFacts } from './told-facts';

export interface ReconciliationSettings {
  /** How often a replica reconciles (RECONCILE_INTERVAL). */
  intervalMs: number;
  /** How far back of the cursor each window starts (RECONCILE_OVERLAP): a PSP may list a Pix late. */
  overlapMs: number;
}

/** Each by connection: a reconciliation reads one PSP. */
export interface ReconciliationMetrics {
  /** Facts a reconciliation added (source "listing"): Pix (or refund settlements) whose callback never came. */
  found: Counter<'connection' | 'source'>;
  /** Pix the PSP listed to a reconciliation, told before or not: what its cost follows. */
  listed: Counter<'connection'>;
  runs: Counter<'connection' | 'outcome'>;
  /** When the last complete reconciliation ended, any replica's (unix seconds). */
  completedAt: Gauge<'connection'>;
}

/** The connection a reconciliation reads: its PSP, and the mode of the facts that PSP tells. */
export interface ReconciledConnection {
  name: ModeName;
  livemode: boolean;
  provider: PixProvider;
}

/** The longest window one run reads: an adapter back from a long stop catches up a window at a time. */
export const MAX_WINDOW_MS = 60 * 60 * 1000;

/** The window a run reads: from the cursor less the overlap to now, at most MAX_WINDOW_MS long. */
export function nextWindow(
  through: Date | null,
  now: Date,
  settings: ReconciliationSettings,
): { from: Date; to: Date; behind: boolean } {
  const start = through ?? new Date(now.getTime() - settings.intervalMs);
  const from = new Date(start.getTime() - settings.overlapMs);
  const to = new Date(Math.min(now.getTime(), from.getTime() + MAX_WINDOW_MS));
  return { from, to, behind: to.getTime() < now.getTime() };
}

/**
 * A replica that finds a reconciliation completed this recently (by itself or another replica)
 * skips its turn unless the cursor is behind: with several replicas, the PSP is asked about once an
 * interval, not once per replica.
 */
export function doneRecently(completedAt: Date | undefined, now: Date, settings: ReconciliationSettings): boolean {
  return completedAt !== undefined && now.getTime() - completedAt.getTime() < settings.intervalMs / 2;
}

/**
 * Reconciliation with the PSP, so a lost callback cannot leave a paid payment pending: every
 * interval, the Pix the PSP received in a window that overlaps the last one (GET /pix, every page)
 * go through the same path as its callbacks (receivePix). A Pix already told makes no new fact
 * (its message id, the endToEndId, within JetStream's two-hour duplicate window; payments ignores
 * a Pix it applied in any case), and one this replica told lately is not even published again
 * (ToldFacts), so the cost is the PSP's pages and the publishes of what the replica had not heard
 * of, whatever the database holds.
 *
 * The cursor (reconciliation-cursor.ts) moves only once every page of a window was fed: a run cut
 * off (a crash, the PSP away) leaves it, and the next run, on any replica, reads that window again.
 * A replica starts with a run, so a restart skips nothing; one far behind reads an hour a run and
 * runs again at once until it catches up. Each PSP connection has its own reconciliation and cursor.
 */
export class Reconciliation extends Periodic {
  constructor(
    private readonly connection: ReconciledConnection,
    private readonly js: JetStreamClient,
    private readonly told: ToldFacts,
    private readonly cursor: ReconciliationCursor,
    private readonly settings: ReconciliationSettings,
    private readonly metrics: ReconciliationMetrics,
    private readonly logger: Logger,
  ) {
    super(settings.intervalMs, (err) => {
      metrics.runs.inc({ connection: connection.name, outcome: 'failed' });
      logger.warn(
        { connection: connection.name, err },
        'reconciliation with the PSP failed; its window is read again next time',
      );
    });
  }

  /** Outside any trace: a reconciliation is nobody's request. */
  protected run(): Promise<void> {
    return withTraceCarrier(undefined, () => this.reconcile(new Date()));
  }

  private async reconcile(now: Date): Promise<void> {
    const { name: connection, livemode, provider } = this.connection;
    const state = await this.cursor.read();
    if (state) this.metrics.completedAt.set({ connection }, state.completedAt.getTime() / 1000);
    const window = nextWindow(state?.through ?? null, now, this.settings);
    if (!window.behind && doneRecently(state?.completedAt, now, this.settings)) {
      this.metrics.runs.inc({ connection, outcome: 'skipped' });
      return;
    }
    let found = 0;
    let received = 0;
    let pages = 1;
    for (let page = 0; page < pages; page++) {
      const listed = await provider.listReceivedPix(window, page);
      pages = listed.pages;
      received += listed.pix.length;
      found += await receivePix(this.js, this.told, listed.pix, livemode, this.logger);
    }
    const completedAt = new Date();
    await this.cursor.advance(window.to, completedAt);
    this.metrics.completedAt.set({ connection }, completedAt.getTime() / 1000);
    this.metrics.runs.inc({ connection, outcome: 'completed' });
    this.metrics.found.inc({ connection, source: 'listing' }, found);
    this.metrics.listed.inc({ connection }, received);
    const line = { connection, from: window.from, to: window.to, pages, received, found };
    if (found > 0) this.logger.warn(line, 'reconciliation found Pix the PSP never called back about');
    else this.logger.debug(line, 'reconciliation with the PSP complete');
    if (window.behind) this.poke();
  }
}
