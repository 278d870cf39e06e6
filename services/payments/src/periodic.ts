import type { Logger } from '@pix/observability';

/**
 * A pass of background work run on an interval and on demand (poke). Passes never overlap: a poke
 * during a pass schedules one more right after it, so work written meanwhile is not left waiting
 * for the next tick.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly pass: () => Promise<void>,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.poke(), this.intervalMs);
  }

  poke(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => this.logger.error({ err, task: this.name }, 'background pass failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.again = false;
    await this.running;
  }
}
