import { centsToBrl, DomainError } from '@pix/contracts';
import { got } from '@pix/http';
import type { Logger } from '@pix/observability';
import type { MutualTls } from '../api-pix/client';
import type { AnalysisState, PixCallback } from '../api-pix/wire';
import { newEndToEndId } from './ids';
import {
  insertOnce,
  SandboxAnalysisModel,
  SandboxCobModel,
  SandboxPixModel,
  type SandboxAnalysisDoc,
  type SandboxCobDoc,
  type SandboxPixDoc,
} from './store';

/** Where and how the PSP calls the receiver back: POST {url}/pix. */
export interface WebhookTarget {
  url: string;
  headers: Record<string, string>;
  /** mTLS: the PSP presents its client certificate (apipix-style receivers require it). */
  tls: MutualTls | null;
}

/** Test-only: the adapter exits right after an action is decided, before the PSP calls back. */
export type SandboxFailPoint = 'crash-after-decision';
export const FAIL_POINT_EXIT_CODE = 87;

/** A callback the receiver did not acknowledge is sent again after these delays, then every minute. */
const REDELIVERY_DELAYS_MS = [1000, 2000, 5000, 15_000, 30_000, 60_000];

type Outcome = Exclude<AnalysisState, 'EM_ANALISE'>;

/**
 * What happens on the payer's side of the sandbox PSP: a customer pays a charge, the PSP holds a
 * Pix for analysis and later clears or rejects it. Each one ends in the PSP calling the receiver's
 * webhook, as a real PSP does, so the rest of the path is the production one.
 *
 * Each action behaves like a PSP under retries and faults. It is decided once per charge by a
 * unique insert (the Pix, or the analysis' outcome, under the txid), so racing or retried
 * requests agree on one Pix and one endToEndId, and a retry of the same action answers what the
 * first one did. The callback is then sent until the receiver acknowledges it: by the action
 * itself, again in the background when it fails, and by a restarted adapter for anything a crash
 * cut off (`resume`). A decided action therefore always completes; nothing is undone.
 */
export class SandboxPayer {
  private readonly redeliveries = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly webhook: WebhookTarget,
    private readonly logger: Logger,
    private readonly failPoint: SandboxFailPoint | null = null,
  ) {}

  /**
   * The customer pays the charge (by default its exact amount); `held`: the PSP holds it for
   * analysis. A retry with the same amount and `held` answers the Pix the charge already received.
   */
  async pay(txid: string, amountCents: number | undefined, held: boolean): Promise<SandboxPixDoc> {
    const charge = await SandboxCobModel.findById(txid).lean<SandboxCobDoc>();
    if (!charge) throw new DomainError('charge_not_found');
    const wanted = amountCents ?? charge.amountCents;
    let pix = await SandboxPixModel.findById(txid).lean<SandboxPixDoc>();
    if (!pix) {
      if (charge.expiresAt.getTime() <= Date.now()) throw new DomainError('charge_expired');
      pix = await insertOnce(SandboxPixModel, {
        _id: txid,
        endToEndId: newEndToEndId('E'),
        amountCents: wanted,
        paidAt: new Date(),
        held,
        notified: false,
      });
      this.crashIfAsked();
    }
    if (pix.amountCents !== wanted || pix.held !== held) throw new DomainError('charge_paid_otherwise');
    if (!pix.notified) await this.completeNow(() => this.completePix(pix));
    return pix;
  }

  /**
   * The analysis of the charge's held Pix ends: cleared (LIBERADO) or rejected (REJEITADO). A retry
   * of the same outcome answers the same; the other outcome is refused once one is decided.
   */
  async endAnalysis(txid: string, outcome: Outcome): Promise<SandboxPixDoc> {
    const pix = await SandboxPixModel.findById(txid).lean<SandboxPixDoc>();
    if (!pix?.held) throw new DomainError('nothing_held');
    // The receiver hears of the held Pix before it hears the end of its analysis.
    if (!pix.notified) await this.completeNow(() => this.completePix(pix));
    let analysis = await SandboxAnalysisModel.findById(txid).lean<SandboxAnalysisDoc>();
    if (!analysis) {
      analysis = await insertOnce(SandboxAnalysisModel, {
        _id: txid,
        endToEndId: pix.endToEndId,
        outcome,
        decidedAt: new Date(),
        notified: false,
      });
      this.crashIfAsked();
    }
    if (analysis.outcome !== outcome) throw new DomainError('analysis_decided');
    if (!analysis.notified) await this.completeNow(() => this.completeAnalysis(pix, analysis));
    return pix;
  }

  /**
   * Completes what a stopped adapter left decided but unacknowledged. Run once at start; the
   * lookups are equalities on `notified`. Another replica doing the same only repeats callbacks,
   * which the receiver deduplicates by endToEndId.
   */
  async resume(): Promise<void> {
    const pixes = await SandboxPixModel.find({ notified: false }).lean<SandboxPixDoc[]>();
    for (const pix of pixes) await this.completeOrRetry(() => this.completePix(pix));
    const analyses = await SandboxAnalysisModel.find({ notified: false }).lean<SandboxAnalysisDoc[]>();
    for (const analysis of analyses) {
      const pix = await SandboxPixModel.findById(analysis._id).lean<SandboxPixDoc>();
      if (pix) await this.completeOrRetry(() => this.completeAnalysis(pix, analysis));
    }
  }

  /** Stops the background redeliveries (shutdown); a restart resumes them. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.redeliveries) clearTimeout(timer);
    this.redeliveries.clear();
  }

  private async completePix(pix: SandboxPixDoc): Promise<void> {
    // The charge is concluded by its Pix (GET /cob shows it); every writer sets the same value.
    await SandboxCobModel.updateOne({ _id: pix._id }, { $set: { 'cob.status': 'CONCLUIDA' } });
    await this.callBack({
      endToEndId: pix.endToEndId,
      txid: pix._id,
      valor: centsToBrl(pix.amountCents).toFixed(2),
      horario: pix.paidAt.toISOString(),
      ...(pix.held ? { analise: 'EM_ANALISE' as const } : {}),
    });
    await SandboxPixModel.updateOne({ _id: pix._id }, { $set: { notified: true } });
  }

  private async completeAnalysis(pix: SandboxPixDoc, analysis: SandboxAnalysisDoc): Promise<void> {
    await this.callBack({
      endToEndId: pix.endToEndId,
      txid: pix._id,
      valor: centsToBrl(pix.amountCents).toFixed(2),
      horario: pix.paidAt.toISOString(),
      analise: analysis.outcome,
    });
    await SandboxAnalysisModel.updateOne({ _id: analysis._id }, { $set: { notified: true } });
  }

  private async callBack(pix: PixCallback['pix'][number]): Promise<void> {
    await got.post(`${this.webhook.url.replace(/\/$/, '')}/pix`, {
      json: { pix: [pix] } satisfies PixCallback,
      headers: this.webhook.headers,
      https: this.webhook.tls ?? {},
      timeout: { request: 5000 },
      retry: { limit: 3, methods: ['POST'] },
    });
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

  private crashIfAsked(): void {
    if (this.failPoint !== 'crash-after-decision') return;
    this.logger.error({ failPoint: this.failPoint }, 'fail point reached: exiting');
    process.exit(FAIL_POINT_EXIT_CODE);
  }
}
