import { StatementCheckedSchema, Subjects, type StatementChecked } from '@pix/contracts';
import type { NatsConnection } from '@pix/messaging';
import { Gauge, type Logger, type Registry } from '@pix/observability';
import type { StatementChecks } from './statement-check-store';

/** Checks read at start: the newest days of both connections, and room for a day checked again. */
const NEWEST = 8;

/**
 * The newest day checked of each connection, as gauges every payments replica shows alike, whichever
 * one ran the check: each replica reads the newest stored checks at start (one command), then
 * follows the notice the replica that stored a check publishes (Notices.statementChecked). A scrape
 * costs no database command. A notice missed (core NATS, at most once) leaves a replica's figures a
 * day behind until the next check or a restart; alerts take the max over replicas.
 * - statement_check_differences{connection,livemode}: the differences of the newest day checked;
 * - statement_check_last_success_timestamp_seconds{connection,livemode}: when that check ended.
 */
export class StatementCheckGauges {
  private readonly shown = new Map<string, StatementChecked>();
  private readonly differences: Gauge<'connection' | 'livemode'>;
  private readonly checkedAt: Gauge<'connection' | 'livemode'>;

  constructor(registry: Registry) {
    this.differences = new Gauge({
      name: 'statement_check_differences',
      help: "Differences between the PSP's listing and the statement on the newest day checked, by connection",
      labelNames: ['connection', 'livemode'] as const,
      registers: [registry],
    });
    this.checkedAt = new Gauge({
      name: 'statement_check_last_success_timestamp_seconds',
      help: 'When the newest day checked against the PSP was checked, by connection (unix seconds)',
      labelNames: ['connection', 'livemode'] as const,
      registers: [registry],
    });
  }

  /** Shows a check unless an older day's: a day checked again by hand replaces its own figures only. */
  show(check: StatementChecked): void {
    const before = this.shown.get(check.connection);
    if (before && before.day > check.day) return;
    this.shown.set(check.connection, check);
    const labels = { connection: check.connection, livemode: String(check.livemode) };
    this.differences.set(labels, check.differenceCount);
    this.checkedAt.set(labels, Date.parse(check.checkedAt) / 1000);
  }

  /** Shows the stored checks, then every check stored from now on, as its notice arrives. */
  async follow(nc: NatsConnection, checks: StatementChecks, logger: Logger): Promise<{ unsubscribe(): void }> {
    const subscription = nc.subscribe(Subjects.statementChecked, {
      callback: (err, msg) => {
        if (err) return;
        let raw: unknown = null;
        try {
          raw = msg.json();
        } catch {
          // Not JSON: refused as malformed below.
        }
        const parsed = StatementCheckedSchema.safeParse(raw);
        if (parsed.success) this.show(parsed.data);
        else logger.warn({ issues: parsed.error.issues }, 'malformed statement check notice; ignored');
      },
    });
    for (const check of (await checks.newest(NEWEST)).reverse()) this.show(check);
    return subscription;
  }
}
