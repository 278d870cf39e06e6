import { DomainError } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { valorFrom } from '../api-pix/transformers';
import type { AnalysisState, PixCallback } from '../api-pix/wire';
import { newEndToEndId } from './ids';
import type { SandboxAnalysis, SandboxBooks, SandboxCharge, SandboxPix } from './books';

/**
 * How the PSP tells the receiver of a Pix (API Pix's callback, POST {webhook}/pix): resolves once
 * the receiver took it, rejects when it did not (the PSP tells it again later).
 */
export type NotifyReceiver = (pix: PixCallback['pix'][number]) => Promise<void>;

/** A callback the receiver did not acknowledge is sent again after these delays, then every minute. */
const REDELIVERY_DELAYS_MS = [1000, 2000, 5000, 15_000, 30_000, 60_000];

type Outcome = Exclude<AnalysisState, 'EM_ANALISE'>;
/** A charge that received its Pix. */
type Paid = SandboxCharge & { pix: SandboxPix };

/**
 * What happens on the payer's side of the sandbox PSP: a customer pays a charge, the PSP holds a
 * Pix for analysis and later clears or rejects it. Each one ends in the PSP telling the receiver
 * what its callback would (NotifyReceiver), so the rest of the path is the production one.
 *
 * Each action behaves like a PSP under retries and faults. It is decided once per charge by one
 * conditional update of the charge (its Pix, or its analysis' outcome, only where there is none yet),
 * so racing or retried requests agree on one Pix and one endToEndId, and a retry of the same action
 * answers what the first one did. The callback is then sent until the receiver acknowledges it: by the action
 * itself, again in the background when it fails, and by a restarted adapter for anything a crash
 * cut off (`resume`). A decided action therefore always completes; nothing is undone.
 */
export class SandboxPayer {
  private readonly redeliveries = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly books: SandboxBooks,
    private readonly notify: NotifyReceiver,
    private readonly logger: Logger,
  ) {}

  /**
   * The customer pays the charge (by default its exact amount); `held`: the PSP holds it for
   * analysis. A retry with the same amount and `held` answers the Pix the charge already received.
   */
  async pay(txid: string, amountCents: number | undefined, held: boolean): Promise<Paid> {
    // With the amount given, the Pix is recorded at once (one command); without, the charge's is read first.
    let charge = amountCents === undefined ? await this.books.findCharge(txid) : null;
    if (amountCents === undefined && !charge) throw new DomainError('charge_not_found');
    const wanted = amountCents ?? charge?.amountCents ?? 0;
    if (!charge?.pix) {
      const now = new Date();
      const pix = { endToEndId: newEndToEndId('E'), amountCents: wanted, paidAt: now, held, notified: false };
      charge = await this.books.recordPix(txid, pix, now);
      if (!charge) throw new DomainError('charge_not_found');
      if (!charge.pix) throw new DomainError('charge_expired');
    }
    const paid = charge as Paid;
    if (paid.pix.amountCents !== wanted || paid.pix.held !== held) throw new DomainError('charge_paid_otherwise');
    if (!paid.pix.notified) await this.completeNow(() => this.completePix(paid));
    return paid;
  }

  /**
   * The analysis of the charge's held Pix ends: cleared (LIBERADO) or rejected (REJEITADO). A retry
   * of the same outcome answers the same; the other outcome is refused once one is decided.
   */
  async endAnalysis(txid: string, outcome: Outcome): Promise<Paid> {
    let charge = await this.books.findCharge(txid);
    if (!charge?.pix?.held) throw new DomainError('nothing_held');
    const held = charge as Paid;
    // The receiver hears of the held Pix before it hears the end of its analysis.
    if (!held.pix.notified) await this.completeNow(() => this.completePix(held));
    if (!charge.analysis) {
      charge = await this.books.recordAnalysis(txid, { outcome, decidedAt: new Date(), notified: false });
    }
    const analysis = charge?.analysis;
    if (!analysis) throw new DomainError('nothing_held');
    if (analysis.outcome !== outcome) throw new DomainError('analysis_decided');
    if (!analysis.notified) await this.completeNow(() => this.completeAnalysis(held, analysis));
    return held;
  }

  /**
   * Completes what a stopped adapter left decided but unacknowledged. Run once at start; the
   * lookups are served by the indexes on `notified`. Another replica doing the same only repeats
   * callbacks, which the receiver deduplicates by endToEndId.
   */
  async resume(): Promise<void> {
    const owing = await this.books.chargesOwingCallbacks();
    for (const charge of owing.pix) await this.completeOrRetry(() => this.completePix(charge as Paid));
    for (const charge of owing.analysis) {
      const { analysis } = charge;
      if (analysis) await this.completeOrRetry(() => this.completeAnalysis(charge as Paid, analysis));
    }
  }

  /** Stops the background redeliveries (shutdown); a restart resumes them. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.redeliveries) clearTimeout(timer);
    this.redeliveries.clear();
  }

  private async completePix(charge: Paid): Promise<void> {
    const { pix } = charge;
    await this.notify({
      endToEndId: pix.endToEndId,
      txid: charge._id,
      valor: valorFrom(pix.amountCents),
      horario: pix.paidAt.toISOString(),
      ...(pix.held ? { analise: 'EM_ANALISE' as const } : {}),
    });
    await this.books.markNotified(charge._id, 'pix');
  }

  private async completeAnalysis(charge: Paid, analysis: SandboxAnalysis): Promise<void> {
    const { pix } = charge;
    await this.notify({
      endToEndId: pix.endToEndId,
      txid: charge._id,
      valor: valorFrom(pix.amountCents),
      horario: pix.paidAt.toISOString(),
      analise: analysis.outcome,
    });
    await this.books.markNotified(charge._id, 'analysis');
  }

  /** Completes a decided action for the caller; when that fails, in the background, and tells the caller to retry. */
  private async completeNow(complete: () => Promise<void>): Promise<void> {
    try {
      await complete();
    } catch (err) {
      this.logger.warn({ err }, 'sandbox PSP callback failed; it will be sent again');
      this.completeLater(complete, 0);
      throw new DomainError('callback_failed');
    }
  }

  private completeLater(complete: () => Promise<void>, attempt: number): void {
    if (this.stopped) return;
    const delay = REDELIVERY_DELAYS_MS[Math.min(attempt, REDELIVERY_DELAYS_MS.length - 1)];
    const timer = setTimeout(() => {
      this.redeliveries.delete(timer);
      complete().catch((err: unknown) => {
        this.logger.warn({ err, attempt: attempt + 1 }, 'sandbox PSP callback failed again');
        this.completeLater(complete, attempt + 1);
      });
    }, delay);
    timer.unref();
    this.redeliveries.add(timer);
  }

  private async completeOrRetry(complete: () => Promise<void>): Promise<void> {
    await complete().catch((err: unknown) => {
      this.logger.warn({ err }, 'resuming a sandbox PSP callback failed; it will be sent again');
      this.completeLater(complete, 0);
    });
  }
}
