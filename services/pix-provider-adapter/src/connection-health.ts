import type { ModeName } from '@pix/contracts';
import type { Gauge, Logger } from '@pix/observability';
import { Periodic } from '@pix/runtime';

/** How often a connection's access is checked (a new OAuth2 token over its mutual TLS). */
export const HEALTH_CHECK_INTERVAL_MS = 30_000;

/**
 * Whether one PSP connection works now: its PSP gives it a token over mutual TLS (a wrong client
 * secret, a certificate the PSP does not take, a PSP out of reach all fail that). Reported as
 * psp_connection_ready{connection} and logged when it changes, with the reason (the failed request's
 * operation, path and status or network code, never what was sent). The adapter stays ready with a
 * connection down: the other mode is served, and this mode's work waits (charges and commands are
 * retried) rather than being lost.
 */
export class ConnectionHealth extends Periodic {
  private ready: boolean | undefined;

  constructor(
    private readonly connection: ModeName,
    private readonly check: () => Promise<void>,
    private readonly gauge: Gauge<'connection'>,
    private readonly logger: Logger,
  ) {
    super(HEALTH_CHECK_INTERVAL_MS, (err) => this.report(false, err));
  }

  /** A connection that could not even be opened (its files): unready until the settings are mended. */
  static unopened(connection: ModeName, reason: string, gauge: Gauge<'connection'>, logger: Logger): void {
    gauge.set({ connection }, 0);
    logger.error({ connection, reason }, 'PSP connection unready: it could not be opened');
  }

  protected async run(): Promise<void> {
    await this.check();
    this.report(true);
  }

  private report(ready: boolean, err?: unknown): void {
    this.gauge.set({ connection: this.connection }, ready ? 1 : 0);
    if (ready === this.ready) return;
    this.ready = ready;
    if (ready) {
      this.logger.info({ connection: this.connection }, 'PSP connection ready');
      return;
    }
    // The message only: a PspError says which request failed and how, never what it carried.
    const reason = err instanceof Error ? err.message : String(err);
    this.logger.error({ connection: this.connection, reason }, 'PSP connection unready');
  }
}
