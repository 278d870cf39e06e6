import './tracing';
import { Consumers, PaymentsRpc, QueueGroups, Streams, Subjects } from '@pix/contracts';
import {
  bodyField,
  CounterReader,
  FactSigner,
  FactVerifier,
  jetstream,
  retrySetup,
  serveRpc,
  startConsumer,
} from '@pix/messaging';
import { writeStartFailure } from '@pix/observability';
import { connectDatabase, connectMessaging, FactGate, RefusedFacts, Service } from '@pix/runtime';
import { adminTransition } from './admin-transition';
import { BalanceTransactions, syncBalanceIndexes } from './balance-store';
import { withMovements } from './balance-transactions';
import { cancelPayment } from './cancel';
import { config } from './config';
import { createPayment } from './create-payment';
import { onDue } from './deadlines';
import { defendDispute, openDisputes } from './dispute-flows';
import { registerPaymentMetrics } from './metrics';
import { OutboxRelay, publisher } from './outbox';
import { PaymentStore, syncPaymentIndexes } from './payment-store';
import { PaymentViewWriter } from './payment-views';
import { onPixEvent } from './pix-events';
import type { StoreScope } from './payment-storage';
import { publicView } from './public-view';
import { getPayment, listPayments, qrCopyPasteOf } from './queries';
import { createRefund, getRefund, listRefunds } from './refunds';
import { checkDay, onStatementCheckDue, scheduleNextCheck } from './statement-check';
import { StatementCheckGauges } from './statement-check-metrics';
import { StatementChecks } from './statement-check-store';
import { exportBalancePage, listBalanceTransactions, statementOfDay, statementOfMonth } from './statement';

/** Messages each of payments' consumers handles at once, per replica. */
const CONSUMER_CONCURRENCY = 64;
/** The key a message is about, to keep one charge's (or payment's) messages in order. */
const txidOf = bodyField('txid');
const paymentIdOf = bodyField('paymentId');

async function main(): Promise<void> {
  const service = await Service.start('payments', config);
  const { logger } = service;

  await connectDatabase(service, config);
  await syncPaymentIndexes(logger);
  await syncBalanceIndexes(logger);
  // Where payments keeps aside the PSP facts it refused for their signature: its dead letter.
  const refused = await RefusedFacts.open({ collection: 'refused_pix_facts' }, logger);
  const checks = await StatementChecks.open(logger);
  service.mark('indexes');

  const nc = await connectMessaging(service, config);

  registerPaymentMetrics(service.registry);
  const balance = new BalanceTransactions(logger);
  // A write's JetStream messages, and the movements of money it made into balance_transactions.
  const publish = withMovements(publisher(nc, new FactSigner(config.FACT_SIGNING_KEY)), (movements) =>
    balance.record(movements),
  );
  const counts = new CounterReader(nc, Streams.paymentCounts);
  const views = await PaymentViewWriter.open(nc, logger);
  const store = new PaymentStore(
    publish,
    (scope, key) => counts.read(Subjects.paymentCount(scope, key)),
    logger,
    views,
  );
  const disputesSince = (scope: StoreScope, since: Date) => store.disputesSince(scope, since);
  const deps = { nc, config, logger, store, publish };
  const statementCheck = { nc, js: jetstream(nc), balance, checks, logger };
  const checkGauges = await new StatementCheckGauges(service.registry).follow(nc, checks, logger);
  service.onShutdown('statement check notices', () => checkGauges.unsubscribe());

  const relay = new OutboxRelay(store, logger, config.OUTBOX_RELAY_INTERVAL);
  await relay.pass();
  relay.start();
  // Registered first, so it runs last: after every writer has stopped, what waits is published once
  // more, and this writer says it owes nothing (or is left for another's relay).
  service.onShutdown('outbox', async () => {
    await relay.stop();
    await store.flush();
  });

  const rpc = { queue: QueueGroups.payments, logger };
  const pixVerifier = new FactVerifier(config.PIX_FACTS_PUBLIC_KEYS);
  const subscriptions = [
    serveRpc(nc, PaymentsRpc.create, (req) => createPayment(deps, req), rpc),
    serveRpc(nc, PaymentsRpc.get, (req) => getPayment(store, req, req.id), rpc),
    serveRpc(nc, PaymentsRpc.list, (req) => listPayments(store, req, req.query), rpc),
    serveRpc(nc, PaymentsRpc.cancel, (req) => cancelPayment(deps, req, req.id), rpc),
    serveRpc(nc, PaymentsRpc.refundsCreate, (req) => createRefund(deps, req), rpc),
    serveRpc(nc, PaymentsRpc.refundsList, (req) => listRefunds(store, req, req.paymentId), rpc),
    serveRpc(nc, PaymentsRpc.disputeDefense, (req) => defendDispute(deps, req), rpc),
    serveRpc(nc, PaymentsRpc.disputesOpen, (req) => openDisputes(store, req), rpc),
    serveRpc(nc, PaymentsRpc.refundsGet, (req) => getRefund(store, req, req.paymentId, req.refundId), rpc),
    serveRpc(nc, PaymentsRpc.balanceList, (req) => listBalanceTransactions(balance, req, req.query), rpc),
    serveRpc(nc, PaymentsRpc.balanceExport, (req) => exportBalancePage(balance, req, req), rpc),
    serveRpc(nc, PaymentsRpc.statement, (req) => statementOfDay(balance, disputesSince, req, req.date), rpc),
    serveRpc(nc, PaymentsRpc.statementMonth, (req) => statementOfMonth(balance, disputesSince, req, req.month), rpc),
    serveRpc(nc, PaymentsRpc.transition, (req) => adminTransition(store, req.paymentId, req.status), rpc),
    serveRpc(nc, PaymentsRpc.qr, async (req) => ({ qrCopyPaste: await qrCopyPasteOf(store, req.id) }), rpc),
    serveRpc(nc, PaymentsRpc.publicView, (req) => publicView(store, req.id), rpc),
    serveRpc(
      nc,
      PaymentsRpc.statementCheckRun,
      async (req) => ({ results: await checkDay(statementCheck, req.date) }),
      rpc,
    ),
    serveRpc(nc, PaymentsRpc.statementCheckResults, async (req) => ({ results: await checks.newest(req.limit) }), rpc),
    serveRpc(nc, PaymentsRpc.refusedFacts, async (req) => ({ facts: await refused.newest(req.limit) }), rpc),
    serveRpc(
      nc,
      PaymentsRpc.reapplyFacts,
      () => refused.reapply(pixVerifier, (subject, payload) => onPixEvent(deps, subject, JSON.parse(payload)), logger),
      rpc,
    ),
  ];
  service.onShutdown('rpc subscriptions', async () => {
    await Promise.all(subscriptions.map((sub) => sub.drain()));
  });

  // Only what the adapter signed is applied; anything else on the PIX stream is kept aside, acked.
  const pixFacts = new FactGate(pixVerifier, logger, refused);
  const pixConsumer = await startConsumer(
    nc,
    // Different charges concurrently, one charge's facts in order (paid before cleared).
    Consumers.paymentsPix,
    {
      logger,
      parallel: true,
      serializeBy: txidOf,
      maxInFlight: CONSUMER_CONCURRENCY,
    },
    async (msg) => ((await pixFacts.admit(msg)) ? onPixEvent(deps, msg.subject, msg.json()) : { ack: true }),
  );
  service.addReadinessCheck('pix consumer', pixConsumer.isBound);
  service.onShutdown('pix consumer', () => pixConsumer.stop());

  const dueConsumer = await startConsumer(
    nc,
    Consumers.paymentsDue,
    {
      logger,
      parallel: true,
      serializeBy: paymentIdOf,
      maxInFlight: CONSUMER_CONCURRENCY,
    },
    (msg) =>
      msg.subject === Subjects.statementCheckDue
        ? onStatementCheckDue(statementCheck, msg.json(), msg.info.deliveryCount)
        : onDue(deps, msg.json()),
  );
  service.addReadinessCheck('scheduled work consumer', dueConsumer.isBound);
  service.onShutdown('scheduled work consumer', () => dueConsumer.stop());
  service.mark('consumers');
  // A stack always has its next nightly statement check waiting (each check schedules the next).
  await retrySetup('statement check schedule', () => scheduleNextCheck(statementCheck.js), logger);

  // The server knows every subscription before the service reports ready.
  await nc.flush();
  service.started({ nats: config.NATS_URL });
}

main().catch((err: unknown) => {
  writeStartFailure('payments', err);
  process.exit(1);
});
