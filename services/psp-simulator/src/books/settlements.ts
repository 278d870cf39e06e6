import type { SandboxBooks, SandboxRefund } from './books';
import type { OwedCallbacks } from './owed-callbacks';
import type { NotifyReceiver } from './payer';

/** How long after it took a refund the sandbox PSP settles it: a moment, as an instant Pix return takes. */
export const SETTLE_AFTER_MS = 200;

/**
 * The sandbox PSP's side of a refund once it took it (EM_PROCESSAMENTO): a moment later it settles
 * it as planned when it was taken (DEVOLVIDO, or NAO_REALIZADO when the merchant asked the sandbox
 * to refuse the next one), then calls the receiver back with the Pix and its devolução, as API
 * Pix's callback does, until the receiver acknowledges (unless the PSP is to lose that callback:
 * then only a listing or a read-back tells of it). A restarted adapter resumes what a stop cut
 * off (`resume`): settling is conditional on the refund still processing, so it happens once.
 */
export class SandboxSettlements {
  constructor(
    private readonly books: SandboxBooks,
    private readonly notify: NotifyReceiver,
    private readonly callbacks: OwedCallbacks,
    private readonly settleAfterMs = SETTLE_AFTER_MS,
  ) {}

  /** A refund the PSP just took: settled and told in the background. */
  took(key: string): void {
    this.callbacks.after(`refund:${key}`, this.settleAfterMs, () => this.settle(key));
  }

  /** Settles and tells what a stopped adapter left unacknowledged. */
  async resume(): Promise<void> {
    for (const refund of await this.books.refundsOwingCallbacks()) {
      await this.callbacks.orLater(`refund:${refund._id}`, () => this.settle(refund._id));
    }
  }

  private async settle(key: string): Promise<void> {
    const refund = await this.books.settleRefund(key, new Date());
    if (!refund || refund.notified) return;
    if (!refund.dropCallback) await this.notify(callbackOf(refund));
    await this.books.markRefundNotified(key);
  }
}

/** The callback that tells of a refund's settlement: its Pix, with the devolução. */
function callbackOf(refund: SandboxRefund) {
  return { ...refund.pix, devolucoes: [refund.devolucao] };
}
