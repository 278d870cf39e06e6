/**
 * A background task: `run` on an interval and whenever poked, from start() until stop(), which
 * waits for a run under way. Runs never overlap: a poke during a run asks for one more run right
 * after it, so no poke is lost and no work is done twice at once. A failed run goes to onError and
 * the next one comes at the next interval.
 */
export abstract class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** One pass of the task. */
  protected abstract run(): Promise<void>;

  start(): void {
    this.timer = setInterval(() => this.poke(), this.intervalMs);
    this.poke();
  }

  poke(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
