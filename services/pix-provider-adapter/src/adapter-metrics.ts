import { MODE_NAMES } from '@pix/contracts';
import { Counter, Gauge, type Registry } from '@pix/observability';
import type { PoolUse } from '@pix/http';
import { CALLBACK_REFUSALS } from './callback-readback';

/** The adapter's metrics, each by PSP connection (`connection`: test or live). */
export function adapterMetrics(registry: Registry) {
  const registers = [registry];
  /** Each open connection's pool, read when scraped. */
  const connectionUse = new Map<string, () => PoolUse>();
  /** A gauge of one figure of every open connection's pool. */
  const poolGauge = (name: string, help: string, figure: keyof PoolUse) =>
    new Gauge({
      name,
      help,
      labelNames: ['connection'] as const,
      registers,
      collect() {
        for (const [connection, use] of connectionUse) this.set({ connection }, use()[figure]);
      },
    });
  const metrics = {
    connectionUse,
    connectionsOpen: poolGauge(
      'psp_connections_open',
      'Connections open to the PSP (busy or idle), by connection: at most PIX_MAX_CONNECTIONS a host',
      'open',
    ),
    callsWaiting: poolGauge(
      'psp_calls_waiting',
      'Calls to the PSP waiting for a connection (all PIX_MAX_CONNECTIONS busy), by connection',
      'waiting',
    ),
    requests: new Counter({
      name: 'psp_requests_total',
      help: 'Calls to the PSP, by connection, operation and outcome (after retries)',
      labelNames: ['connection', 'operation', 'outcome'] as const,
      registers,
    }),
    ready: new Gauge({
      name: 'psp_connection_ready',
      help: 'Whether a PSP connection works now (1): its PSP gives it a token over mutual TLS; 0 with the reason in the log',
      labelNames: ['connection'] as const,
      registers,
    }),
    callbacksRefused: new Counter({
      name: 'psp_callbacks_refused_total',
      help: 'PSP callbacks (or Pix in them) not believed, by connection and reason: foreign_certificate, readback_mismatch, readback_not_found, readback_failed (left to the next try and reconciliation)',
      labelNames: ['connection', 'reason'] as const,
      registers,
    }),
    callbackRegistered: new Gauge({
      name: 'psp_callback_registered',
      help: "1 once the connection's PSP took the callback URL registered at start (PIX_CALLBACK_URL, LIVE_PSP_CALLBACK_URL), 0 while it is retried",
      labelNames: ['connection'] as const,
      registers,
    }),
    commands: new Counter({
      name: 'pix_commands_total',
      help: "payments' commands to the PSP (refund, cancel) by connection and how each try ended: done, refused, processing (read back later) or retried",
      labelNames: ['connection', 'kind', 'outcome'] as const,
      registers,
    }),
    found: new Counter({
      name: 'pix_reconciliation_found_total',
      help: 'Facts reading the PSP added, by connection and source (listing: GET /pix; charge_read: GET /cob before an expiry): Pix or refund settlements whose callback never came',
      labelNames: ['connection', 'source'] as const,
      registers,
    }),
    listed: new Counter({
      name: 'pix_reconciliation_listed_total',
      help: 'Pix the PSP listed to reconciliations (GET /pix), told before or not, by connection',
      labelNames: ['connection'] as const,
      registers,
    }),
    runs: new Counter({
      name: 'pix_reconciliation_runs_total',
      help: 'Reconciliations with the PSP, by connection and outcome: completed, failed (read again next time), skipped (another replica just did it)',
      labelNames: ['connection', 'outcome'] as const,
      registers,
    }),
    completedAt: new Gauge({
      name: 'pix_reconciliation_completed_timestamp_seconds',
      help: 'When the last complete reconciliation with the PSP ended, by any replica, by connection',
      labelNames: ['connection'] as const,
      registers,
    }),
    infractionsTold: new Counter({
      name: 'pix_infractions_told_total',
      help: "Dispute facts reading a PSP's infractions added, by connection and kind (opened, closed)",
      labelNames: ['connection', 'kind'] as const,
      registers,
    }),
    infractionRuns: new Counter({
      name: 'pix_infractions_runs_total',
      help: "Readings of a PSP's infractions, by connection and outcome: completed, failed (read again next time), skipped (another replica just did it), unsupported (the PSP answered 404; not read again)",
      labelNames: ['connection', 'outcome'] as const,
      registers,
    }),
    infractionsUnknownPix: new Counter({
      name: 'pix_infractions_unknown_pix_total',
      help: 'Infractions against a Pix the PSP holds for no charge (not found, or paid to no charge), by connection: for an operator',
      labelNames: ['connection'] as const,
      registers,
    }),
  };
  // Every refusal reason from zero, so an alert sees the first one as an increase.
  for (const connection of MODE_NAMES) {
    for (const reason of CALLBACK_REFUSALS) metrics.callbacksRefused.inc({ connection, reason }, 0);
  }
  return metrics;
}

export type AdapterMetrics = ReturnType<typeof adapterMetrics>;
