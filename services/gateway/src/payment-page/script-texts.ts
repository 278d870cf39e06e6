import { PaymentPageTexts, type PagePhase } from '@pix/contracts';

/** The texts of the page's script (browser/), which the page carries in its data-texts. */
export interface PaymentPageScriptTexts {
  phases: Record<PagePhase, string>;
  details: Record<PagePhase, string>;
  copied: string;
  copyFailed: string;
}

export const SCRIPT_TEXTS: PaymentPageScriptTexts = {
  phases: PaymentPageTexts.phases,
  details: PaymentPageTexts.details,
  copied: PaymentPageTexts.copied,
  copyFailed: PaymentPageTexts.copyFailed,
};
