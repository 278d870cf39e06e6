import type http from 'node:http';
import type { ServiceIdentity } from '@pix/contracts';
import {
  createLogger,
  createRegistry,
  startOpsServer,
  type Logger,
  type ReadinessCheck,
  shutdownTracing,
  type Registry,
} from '@pix/observability';

export interface ServiceOptions<Name extends string = ServiceIdentity> {
  /** Which service: also its identity on NATS (the PSP simulator, which speaks no NATS, has a name of its own). */
  name: Name;
  opsPort: number;
  opsHost: string;
  logLevel: string;
  /** How long SIGTERM may take before the process gives up and exits non-zero. */
  shutdownGraceMs: number;
}

/** The settings every service's configuration carries (see CommonEnv in @pix/config). */
export interface CommonSettings {
  OPS_PORT: number;
  OPS_HOST: string;
  LOG_LEVEL: string;
  SHUTDOWN_GRACE: number;
}

type ShutdownStep = { name: string; run: () => Promise<void> | void };

/**
 * What every service shares: a logger, a metrics registry, the ops port with health and readiness,
 * and a graceful shutdown. Shutdown steps run in the reverse order of registration, so what was
 * started last (the public listener, the consumers) stops first and connections close last.
 */
export class Service<Name extends string = ServiceIdentity> {
  readonly logger: Logger;
  readonly registry: Registry;
  private readonly checks: ReadinessCheck[] = [];
  private readonly steps: ShutdownStep[] = [];
  private opsServer: http.Server | undefined;
  private draining = false;
  private hasStarted = false;
  private stopping: Promise<void> | undefined;
  /** Start-up's steps and how long each took, in milliseconds, for the start-up log line. */
  private readonly startup: Record<string, number> = {};
  private lastMark = performance.now();

  /** Creates the service from its configuration and opens its ops port. */
  static async start<Name extends string>(name: Name, settings: CommonSettings): Promise<Service<Name>> {
    // Since the process began: node itself, and loading the service's modules (OpenTelemetry first).
    const loaded = performance.now();
    const service = new Service({
      name,
      opsPort: settings.OPS_PORT,
      opsHost: settings.OPS_HOST,
      logLevel: settings.LOG_LEVEL,
      shutdownGraceMs: settings.SHUTDOWN_GRACE,
    });
    service.startup.modules = Math.round(loaded);
    service.lastMark = loaded;
    await service.startOps();
    return service;
  }

  constructor(private readonly options: ServiceOptions<Name>) {
    this.logger = createLogger(options.name, options.logLevel);
    this.registry = createRegistry(options.name);
  }

  get name(): Name {
    return this.options.name;
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
      lifecycle: () => ({ started: this.hasStarted, draining: this.draining }),
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

  /**
   * Records that a step of start-up ended (connecting, creating streams, ...): the start-up log
   * line says how long each step took, so a slow restart shows where its time went.
   */
  mark(step: string): void {
    const now = performance.now();
    this.startup[step] = Math.round(now - this.lastMark);
    this.lastMark = now;
  }

  /** Marks start-up as finished: /readyz answers 200 from now on (while every check passes). */
  started(details: Record<string, unknown> = {}): void {
    this.mark('rest');
    this.hasStarted = true;
    const startupMs = { ...this.startup, total: Math.round(performance.now()) };
    this.logger.info({ ...details, startupMs }, `${this.options.name} started`);
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
    // Last, so the spans of the shutdown itself leave too.
    await shutdownTracing().catch((err: unknown) => this.logger.warn({ err }, 'flushing spans failed'));
    clearTimeout(timer);
    this.logger.info('stopped');
  }
}
