import type { NatsConnection } from '@nats-io/transport-node';
import { SandboxRpc } from '@pix/contracts';
import { callRpc } from '@pix/messaging';
import { databaseCommands } from './db-commands';
import { createWebhookPayments } from './confirmations';
import type { BenchStore } from './seed';
import type { WebhookReceiver } from './webhooks';

/**
 * What reconciling with the PSP cost while it found Pix whose callbacks the PSP lost: over the
 * runs that found them, the PSP's list requests and the Pix they listed (every Pix of the window,
 * told before or not), the adapter's commands on its cursor, and the platform's database commands
 * (the sandbox PSP's books left out, as everywhere in the bench) for applying the Pix found.
 */
export interface ReconciliationCost {
  /** Payments paid with their callback lost, and how many were approved within the wait. */
  paid: number;
  approved: number;
  runs: number;
  listed: number;
  found: number;
  listRequests: number;
  cursorCommands: number;
  platformCommands: number | null;
}

/** A counter's total in a Prometheus text, summed over the series whose labels contain `labels`. */
function counter(text: string, name: string, labels = ''): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\d+(?:\\.\\d+)?)$`).exec(line);
    if (match && (match[1] ?? '').includes(labels)) total += Number(match[2]);
  }
  return total;
}

async function adapterCounts(opsUrl: string) {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return {
    text,
    runs: counter(text, 'pix_reconciliation_runs_total', 'outcome="completed"'),
    listed: counter(text, 'pix_reconciliation_listed_total'),
    found: counter(text, 'pix_reconciliation_found_total', 'source="listing"'),
    listRequests: counter(text, 'psp_requests_total', 'operation="list_pix"'),
    cursorCommands: counter(text, 'db_commands_total', 'collection="psp_reconciliations"'),
  };
}

const PAY_CONCURRENCY = 8;

/**
 * `count` payments paid through the sandbox PSP with their callback lost, then waited for until
 * reconciliation approves them (their payment.status_changed webhook); null for a checkout without
 * reconciliation (its adapter exports no pix_reconciliation_runs_total).
 */
export async function measureReconciliation(
  stack: { gatewayUrl: string; opsUrls: Record<string, string> },
  nc: NatsConnection,
  receiver: WebhookReceiver,
  store: BenchStore,
  count: number,
  waitSeconds: number,
): Promise<ReconciliationCost | null> {
  const adapter = stack.opsUrls['pix-provider-adapter'] ?? '';
  if (!(await adapterCounts(adapter)).text.includes('pix_reconciliation_runs_total')) return null;
  const ids = await createWebhookPayments(stack.gatewayUrl, store, receiver, count, waitSeconds);
  const before = await adapterCounts(adapter);
  const commandsBefore = await databaseCommands(stack.opsUrls);
  const queue = [...ids];
  const payer = async () => {
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      await callRpc(nc, SandboxRpc.pay, { paymentId: id, dropCallback: true }, 10_000).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: PAY_CONCURRENCY }, payer));
  await receiver.waitFor(receiver.statusChanged, ids, performance.now() + waitSeconds * 1000);
  const after = await adapterCounts(adapter);
  const commandsAfter = await databaseCommands(stack.opsUrls);
  return {
    paid: ids.length,
    approved: ids.filter((id) => receiver.statusChanged.has(id)).length,
    runs: after.runs - before.runs,
    listed: after.listed - before.listed,
    found: after.found - before.found,
    listRequests: after.listRequests - before.listRequests,
    cursorCommands: after.cursorCommands - before.cursorCommands,
    platformCommands: commandsBefore === null || commandsAfter === null ? null : commandsAfter - commandsBefore,
  };
}
