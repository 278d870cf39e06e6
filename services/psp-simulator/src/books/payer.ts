import { DomainError } from '@pix/contracts';
import { valorFrom, type AnalysisState, type PixEntry } from '@pix/api-pix';
import { newEndToEndId } from './ids';
import type { SandboxAnalysis, SandboxBooks, SandboxCharge, SandboxPix } from './books';
import type { OwedCallbacks } from './owed-callbacks';

/**
 * How the PSP tells the receiver of a Pix (API Pix's callback, POST {webhook}/pix): resolves once
 * the receiver took it, rejects when it did not (the PSP tells it again later). `chave`, the
 * charge's Pix key (whose webhook the callback goes to), when the caller holds the charge; without
 * it the charge is read.
 */
export type NotifyReceiver = (pix: PixEntry, chave?: string) => Promise<void>;

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
 * cut off (`resume`). A decided action therefore always completes; nothing is undone. The one
 * exception to "a retry answers the same" is a late Pix (`payLate`): each is a new Pix.
 */
export class SandboxPayer {
  constructor(
    private readonly books: SandboxBooks,
    private readonly notify: NotifyReceiver,
    private readonly callbacks: OwedCallbacks,
  ) {}

  /**
   * The customer pays the charge (by default its exact amount); `held`: the PSP holds it for
   * analysis. A retry with the same amount and `held` answers the Pix the charge already received.
   */
  async pay(txid: string, amountCents: number | undefined, held: boolean, dropCallback = false): Promise<Paid> {
    // With the amount given, the Pix is recorded at once (one command); without, the charge's is read first.
    let charge = amountCents === undefined ? await this.books.findCharge(txid) : null;
    if (amountCents === undefined && !charge) throw new DomainError('charge_not_found');
    const wanted = amountCents ?? charge?.amountCents ?? 0;
    if (!charge?.pix) {
      const now = new Date();
      const pix: SandboxPix = {
        endToEndId: newEndToEndId('E'),
        amountCents: wanted,
        paidAt: now,
        held,
        notified: false,
        ...(dropCallback && { dropCallback }),
      };
      charge = await this.books.recordPix(txid, pix, now);
      if (!charge) throw new DomainError('charge_not_found');
      if (!charge.pix) throw new DomainError(charge.cob.status === 'ATIVA' ? 'charge_expired' : 'charge_removed');
    }
    const paid = charge as Paid;
    if (paid.pix.amountCents !== wanted || paid.pix.held !== held) throw new DomainError('charge_paid_otherwise');
    if (!paid.pix.notified) await this.completeNow(pixKey(paid._id, paid.pix), () => this.completePix(paid, paid.pix));
    return paid;
  }

  /**
   * A Pix for the charge whatever its state: paid already, expired or removed (a payer's bank may
   * still send one, or race a cancel). Each call is a new Pix with its own endToEndId; the receiver,
   * finding its payment no longer pending, returns it.
   */
  async payLate(
    txid: string,
    amountCents: number | undefined,
    dropCallback = false,
  ): Promise<{ _id: string; pix: SandboxPix }> {
    const known = amountCents === undefined ? await this.books.findCharge(txid) : null;
    if (amountCents === undefined && !known) throw new DomainError('charge_not_found');
    const now = new Date();
    const pix: SandboxPix = {
      endToEndId: newEndToEndId('E'),
      amountCents: amountCents ?? known?.amountCents ?? 0,
      paidAt: now,
      held: false,
      notified: false,
      ...(dropCallback && { dropCallback }),
    };
    const charge = await this.books.recordLatePix(txid, pix);
    if (!charge) throw new DomainError('charge_not_found');
    await this.completeNow(pixKey(charge._id, pix), () => this.completeLatePix(charge, pix));
    return { _id: charge._id, pix };
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
    if (!held.pix.notified) await this.completeNow(pixKey(held._id, held.pix), () => this.completePix(held, held.pix));
    if (!charge.analysis) {
      charge = await this.books.recordAnalysis(txid, { outcome, decidedAt: new Date(), notified: false });
    }
    const analysis = charge?.analysis;
    if (!analysis) throw new DomainError('nothing_held');
    if (analysis.outcome !== outcome) throw new DomainError('analysis_decided');
    if (!analysis.notified) await this.completeNow(`analysis:${held._id}`, () => this.completeAnalysis(held, analysis));
    return held;
  }

  /**
   * Completes what a stopped adapter left decided but unacknowledged. Run once at start; the
   * lookups are served by the indexes on `notified`. Another replica doing the same only repeats
   * callbacks, which the receiver deduplicates by endToEndId.
   */
  async resume(): Promise<void> {
    const owing = await this.books.chargesOwingCallbacks();
    for (const charge of owing.pix) {
      await this.callbacks.orLater(pixKey(charge._id, charge.pix), () => this.completePix(charge, charge.pix));
    }
    for (const charge of owing.analysis) {
      const { analysis } = charge;
      if (analysis)
        await this.callbacks.orLater(`analysis:${charge._id}`, () => this.completeAnalysis(charge as Paid, analysis));
    }
    for (const charge of owing.late) {
      for (const pix of charge.latePix ?? []) {
        if (!pix.notified)
          await this.callbacks.orLater(pixKey(charge._id, pix), () => this.completeLatePix(charge, pix));
      }
    }
  }

  /** The Pix goes into the PSP's ledger (GET /pix lists it), then its callback, unless the PSP loses that. */
  private async completePix(charge: SandboxCharge, pix: SandboxPix | null): Promise<void> {
    if (!pix) return;
    await this.books.ledgerPix(charge._id, pix);
    if (!pix.dropCallback) {
      await this.notify(
        { ...callbackPix(charge._id, pix), ...(pix.held ? { analise: 'EM_ANALISE' as const } : {}) },
        charge.cob.chave,
      );
    }
    await this.books.markNotified(charge._id, 'pix');
  }

  private async completeLatePix(charge: Pick<SandboxCharge, '_id' | 'cob'>, pix: SandboxPix): Promise<void> {
    await this.books.ledgerPix(charge._id, pix);
    if (!pix.dropCallback) await this.notify(callbackPix(charge._id, pix), charge.cob.chave);
    await this.books.markLateNotified(charge._id, pix.endToEndId);
  }

  private async completeAnalysis(charge: Paid, analysis: SandboxAnalysis): Promise<void> {
    await this.notify({ ...callbackPix(charge._id, charge.pix), analise: analysis.outcome }, charge.cob.chave);
    await this.books.markNotified(charge._id, 'analysis');
  }

  /** Completes a decided action for the caller; when that fails, in the background, and tells the caller to retry. */
  private async completeNow(key: string, complete: () => Promise<void>): Promise<void> {
    try {
      await this.callbacks.now(key, complete);
    } catch {
      throw new DomainError('callback_failed');
    }
  }
}

/** The key a Pix's callback is owed under (OwedCallbacks): one per Pix. */
function pixKey(txid: string, pix: SandboxPix | null): string {
  return `pix:${txid}:${pix?.endToEndId ?? ''}`;
}

/** A Pix of a charge as API Pix's callback carries it. */
export function callbackPix(txid: string, pix: SandboxPix): PixEntry {
  return {
    endToEndId: pix.endToEndId,
    txid,
    valor: valorFrom(pix.amountCents),
    horario: pix.paidAt.toISOString(),
  };
}

/** A Pix of a charge as GET /pix and GET /cob list it: with where its analysis stands now. */
export function listedPix(charge: SandboxCharge, pix: SandboxPix): PixEntry {
  if (!pix.held) return callbackPix(charge._id, pix);
  return { ...callbackPix(charge._id, pix), analise: charge.analysis?.outcome ?? 'EM_ANALISE' };
}
