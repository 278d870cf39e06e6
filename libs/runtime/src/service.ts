import type http from 'node:http';
import {
  createLogger,
  createRegistry,
  startOpsServer,
  type Logger,
  type ReadinessCheck,
  type Registry,
} from '@pix/observability';

export interface ServiceOptions {
  name: string;
  opsPort: number;
  opsHost: string;
  logLevel: string;
  /** How long SIGTERM may take before the process gives up and exits non-zero. */
  shutdownGraceMs: number;
}

type ShutdownStep = { name: string; run: () => Promise<void> | void };

/**
 * What every service shares: a logger, a metrics registry, the ops port with health and readiness,
 * and a graceful shutdown. Shutdown steps run in the reverse order of registration, so what was
 * started last (the public listener, the consumers) stops first and connections close last.
 */
export class Service {
  readonly logger: Logger;
  readonly registry: Registry;
  private readonly checks: ReadinessCheck[] = [];
  private readonly steps: ShutdownStep[] = [];
  private opsServer: http.Server | undefined;
  private draining = false;
  private isStarted = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: ServiceOptions) {
    this.logger = createLogger(options.name, options.logLevel);
    this.registry = createRegistry(options.name);
    // Not ready before main() has set everything up: the checks added so far may all pass while
    // subscriptions and consumers are still being made.
    this.addReadinessCheck('started', () => this.isStarted);
  }

  get isDraining(): boolean {
    return this.draining;
  }

  addReadinessCheck(name: string, check: () => boolean | Promise<boolean>): void {
    this.checks.push({ name, check });
  }

  onShutdown(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  /** Starts the ops port and takes SIGTERM/SIGINT; call before starting any work. */
  async startOps(): Promise<void> {
    this.opsServer = await startOpsServer({
      port: this.options.opsPort,
      host: this.options.opsHost,
      registry: this.registry,
      checks: () => this.checks,
      draining: () => this.draining,
    });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        this.logger.info({ signal }, 'shutting down');
        void this.stop().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      });
    }
    process.on('unhandledRejection', (reason) => {
      this.logger.error({ err: reason }, 'unhandled rejection');
    });
  }

  /** Reports the service as started (make up and the tests wait for this line or /readyz). */
  started(details: Record<string, unknown> = {}): void {
    this.isStarted = true;
    this.logger.info(details, `${this.options.name} started`);
  }

  stop(): Promise<void> {
    this.stopping ??= this.runShutdown();
    return this.stopping;
  }

  private async runShutdown(): Promise<void> {
    this.draining = true;
    const timer = setTimeout(() => {
      this.logger.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, this.options.shutdownGraceMs);
    timer.unref();
    for (const step of [...this.steps].reverse()) {
      try {
        await step.run();
        this.logger.info({ step: step.name }, 'shutdown step done');
      } catch (err) {
        this.logger.error({ err, step: step.name }, 'shutdown step failed');
      }
    }
    await new Promise<void>((resolve) => {
      if (!this.opsServer) return resolve();
      this.opsServer.close(() => resolve());
      this.opsServer.closeAllConnections();
    });
    clearTimeout(timer);
    this.logger.info('stopped');
  }
}
