import type { Logger } from '@pix/observability';

/** The first retry's delay, doubled after each failure up to the longest. */
const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 60_000;

/**
 * Registers the adapter's callback URL at the PSP when the adapter starts (API Pix's
 * PUT /webhook/{chave}), as a PSP's onboarding asks, so that a new callback host or a PSP that lost
 * the registration is corrected by a restart rather than by hand. A PSP away at start does not keep
 * the adapter from serving: the registration is tried again, backing off, until the PSP takes it,
 * and `registered` (psp_callback_registered) says meanwhile that callbacks may not be coming
 * (reconciliation still finds the Pix they would have told).
 */
export class CallbackRegistration {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly register: (webhookUrl: string) => Promise<void>,
    private readonly webhookUrl: string,
    private readonly registered: (done: boolean) => void,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.registered(false);
    void this.attempt(FIRST_RETRY_MS);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async attempt(nextDelayMs: number): Promise<void> {
    try {
      await this.register(this.webhookUrl);
      this.registered(true);
      this.logger.info({ webhookUrl: this.webhookUrl }, 'callback URL registered at the PSP');
    } catch (err) {
      if (this.stopped) return;
      // A PspError carries the method, path and status, never the request's credentials.
      this.logger.warn({ err, retryInMs: nextDelayMs }, 'registering the callback URL at the PSP failed');
      this.timer = setTimeout(() => void this.attempt(Math.min(nextDelayMs * 2, LONGEST_RETRY_MS)), nextDelayMs);
    }
  }
}
