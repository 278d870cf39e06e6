import fs from 'node:fs';
import path from 'node:path';
import { jetstream } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { statementDay } from '@pix/contracts';
import { connectAs } from '@pix/devstack';
import { MongoClient, type Collection } from 'mongodb';
import { bareHttp, rawFindAndCount, rawFindOne, rawInsertOne } from './ceilings';
import {
  loadDevstack,
  loadListKeys,
  loadPaymentCounters,
  paymentShape,
  shapeDocument,
  type Devstack,
} from './checkout';
import {
  confirmAtFixedRate,
  createWebhookPayments,
  refundAtFixedRate,
  type ConfirmationLatency,
} from './confirmations';
import { databaseCommands } from './db-commands';
import { runLoad, runPaced, type Target } from './load';
import { measureReconciliation, type ReconciliationCost } from './reconciliation';
import { countSeeded, createStores, historicPayment, seedMovements, seedPayments, type BenchStore } from './seed';
import { latency, reconciliationCell, throughput } from './report';
import type { Throughput } from './stats';
import { CpuMeter, peakRssMiB } from './usage';
import type { WebhookReceiver } from './webhooks';

export interface BenchOptions {
  /** Payments stored at each step, ascending: every figure is taken at each. */
  sizes: number[];
  /** Duration of each throughput measurement. */
  seconds: number;
  connections: number;
  confirmations: number;
  confirmationRate: number;
  /** The fixed rate of the open-loop create figure, and for how long it is sent. */
  fixedRate: number;
  fixedRateSeconds: number;
  /** How long webhooks still owed are waited for. */
  webhookWaitSeconds: number;
  /** Payments a store receives in the two minutes before its list is measured, at the largest size. */
  burst: number;
  /** Pix received in the last 30 days by the statement store, at the largest size. */
  statementMovements: number;
  idleSeconds: number;
  /** Quiet time before the idle measurement, for the last load's work to finish. */
  settleSeconds: number;
  /** Where stacks keep their data and logs. */
  workDir: string;
  keepLogs: boolean;
}

const STORES = 100;
/** Payments paid with their callback lost at each size, for the reconciliation's cost. */
const RECONCILED = 100;
/** The store the list is measured on holds this many payments at every size. */
const LIST_STORE_SIZE = 1000;
/** A burst's payments are created within this long before its list is measured. */
const BURST_WITHIN_MS = 2 * 60 * 1000;
/** Payments that get by id cycles through: the create figure's, or seeded ones drawn at random. */
const GET_SAMPLE = 1000;
/**
 * Creates for this long, unmeasured, before the first figure: the services' JIT and pools warm up
 * there, not in the first size's create figure (which cost 20-35 % more CPU per create than the
 * next size's on the same stack, with twice its p99).
 */
const WARMUP_SECONDS = 3;

/** Counted by the database, or (`exact: false`) what the bench knows it wrote, when the count took too long. */
export interface StoredCount {
  count: number;
  exact: boolean;
}

/** How long a count of every payment may take: a stack buried in a backlog may not answer. */
const COUNT_TIMEOUT_MS = 15_000;

async function storedPayments(payments: Collection, written: number): Promise<StoredCount> {
  try {
    return { count: await payments.countDocuments({}, { timeoutMS: COUNT_TIMEOUT_MS }), exact: true };
  } catch {
    return { count: written, exact: false };
  }
}

/**
 * Runs `seed` with the services paused (SIGSTOP): seeding is preparation, and services that scan
 * the collection as it grows would only make it slower. They resume (SIGCONT) whatever happens.
 */
async function withServicesPaused<T>(processes: readonly { name: string; pid: number }[], seed: () => Promise<T>) {
  const services = processes.filter((p) => SERVICES.has(p.name));
  for (const p of services) process.kill(p.pid, 'SIGSTOP');
  try {
    return await seed();
  } finally {
    for (const p of services) process.kill(p.pid, 'SIGCONT');
  }
}

export interface ProcessCpu {
  name: string;
  /** CPU seconds over the figure's run, children included. */
  seconds: number;
  percent: number;
}

/** An API figure with what it cost: database commands per request and the CPU of each process. */
export interface ApiFigure extends Throughput {
  dbCommandsPerRequest: number | null;
  cpu: ProcessCpu[];
}

export interface SizeResult {
  size: number;
  /** Payments stored when the reads ran, and after the writes of this step. */
  stored: StoredCount;
  storedAfter: StoredCount;
  seedPerSecond: number | null;
  create: ApiFigure;
  /** Creates at a fixed rate (an open loop), one at a time as merchants' arrive: issue 41's fixed 50/s. */
  createAtRate: ApiFigure;
  /** Gets of payments the API made (the create figure's), each with its view in the read model. */
  get: ApiFigure;
  /** Gets of seeded payments, which have no view: the database path (optional in older results). */
  getFromDatabase?: ApiFigure;
  list: ApiFigure;
  /** One client listing the largest store (all but the list store's payments). */
  listLargeStore: ApiFigure & { storeHolds: number };
  /** At the largest size: a store that has just received a burst of payments, listed. */
  burst: BurstFigures | null;
  /** At the largest size: a store's statement and balance transactions, a month of Pix in it. */
  statement: StatementFigures | null;
  rawInsertOne: Throughput;
  rawFindOne: Throughput;
  rawFindAndCount: Throughput;
  confirmation: ConfirmationLatency & { dbCommandsPerConfirmation: number | null };
  /** A refund of each confirmed payment: asked through the API, to its refund.succeeded webhook. */
  refund: ConfirmationLatency & { dbCommandsPerRefund: number | null };
  /** Payments whose callback the PSP lost, found by reconciliation; null for a checkout without it. */
  reconciliation: ReconciliationCost | null;
}

/** The first page of a store that received `holds` payments in the last two minutes (issue 27). */
export interface BurstFigures {
  holds: number;
  /** One client. */
  oneClient: ApiFigure;
  /** The bench's connections on the burst store, then on the 1,000-payment list store right after. */
  concurrent: ApiFigure;
  smallStore: ApiFigure;
}

/** A store's money read back (issue 39): `holds` Pix received in its last 30 days. */
export interface StatementFigures {
  holds: number;
  /** GET /public-api/v1/statements/{today}: one client, then the bench's connections. */
  dayOneClient: ApiFigure;
  day: ApiFigure;
  /** GET /public-api/v1/balance-transactions?limit=50 (the last 31 days): one client, then the connections. */
  listOneClient: ApiFigure;
  list: ApiFigure;
}

export interface VariantResult {
  label: string;
  /** The stack's processes that are not services (the engine it ran on). */
  infrastructure: string[];
  bareHttp: Throughput;
  sizes: SizeResult[];
  /** CPU of each process over the idle window at the largest size. */
  idleCpu: ProcessCpu[];
  peakRssMiB: { name: string; mib: number | null }[];
}

const SERVICES = new Set(['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher']);

const started = performance.now();

function log(label: string, message: string): void {
  const at = (performance.now() - started) / 1000;
  process.stdout.write(
    `${String(Math.floor(at / 60)).padStart(2, '0')}:${(at % 60).toFixed(0).padStart(2, '0')} [${label}] ${message}\n`,
  );
}

/** A stack's directory, with whatever its devstack keeps outside it (an older one keeps nothing). */
function removeStackDir(devstack: Devstack, dir: string): void {
  const remove = (devstack as Partial<Record<'removeStackDir', (dir: string) => void>>).removeStackDir;
  if (remove) remove(dir);
  else fs.rmSync(dir, { recursive: true, force: true });
}

function pickSample<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from({ length: count }, () => items[Math.floor(Math.random() * items.length)] as T);
}

/** Measures one checkout: its own stack, seeded step by step to each size, loaded at each. */
export async function runVariant(
  name: string,
  label: string,
  root: string,
  options: BenchOptions,
  receiver: WebhookReceiver,
): Promise<VariantResult> {
  const devstack = loadDevstack(root);
  const shape = paymentShape(root);
  fs.mkdirSync(options.workDir, { recursive: true });
  const dir = fs.mkdtempSync(path.join(options.workDir, `${name}-`));
  log(label, 'starting its stack');
  const stack = await devstack.startStack({
    dir,
    // NATS_CLUSTER=3: a local JetStream cluster, where the measured checkout's devstack has them.
    ports: await devstack.randomPorts(
      (devstack as Partial<Pick<Devstack, 'natsClusterSize'>>).natsClusterSize?.() ?? 1,
    ),
    detached: false,
    root,
    // Reconciliation every 10 s rather than 60: its measure waits for it (a checkout without it ignores the setting).
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_REQUESTS: '1000000000', RECONCILE_INTERVAL: '10s' },
  });
  let nc: NatsConnection | undefined;
  let asPayments: NatsConnection | undefined;
  // The raw ceilings are the database's own: without the pool bounds the stack gives its services.
  // As the engine's administrator where the checkout's devstack has one (a baseline from before
  // issue 26 runs FerretDB without authentication and has none).
  const client = new MongoClient(
    ((stack as { mongoAdminUrl?: string }).mongoAdminUrl ?? stack.mongoUrl).replace(/\?.*$/, ''),
  );
  try {
    // The operator's identity, as the admin CLI; the seeded counters are payments' to write. A
    // baseline before issue 26 lists no credentials, and its NATS asks for none.
    nc = await connectAs(stack.natsUrl, 'admin', stack.natsCredentials);
    asPayments = await connectAs(stack.natsUrl, 'payments', stack.natsCredentials);
    const payments = client.db().collection('payments');
    const stores = await createStores(nc, STORES);
    const [listStore, largeStore, ...others] = stores as [BenchStore, BenchStore, ...BenchStore[]];
    const createStore = others[others.length - 1] as BenchStore;
    const webhookStore = others[others.length - 2] as BenchStore;
    const insertStore = others[others.length - 3] as BenchStore;
    const reconciledStore = others[others.length - 4] as BenchStore;
    const burstStore = others[others.length - 5] as BenchStore;
    const statementStore = others[others.length - 6] as BenchStore;
    const keys = loadListKeys(root);
    const counters = loadPaymentCounters(root);
    const newDocument = () => shapeDocument(shape, historicPayment(insertStore.storeId, stack.gatewayUrl, keys));

    log(label, 'bare Node HTTP');
    const bare = await bareHttp(options.connections, options.seconds);
    const seeded: { id: string; store: BenchStore }[] = [];
    let listStoreHolds = 0;
    let largeStoreHolds = 0;
    const sizes: SizeResult[] = [];
    let idleCpu: ProcessCpu[] = [];

    /** Payments the bench knows it wrote (seeded, and answered 2xx or acknowledged). */
    let written = 0;
    const createTargets = [{ path: '/public-api/v1/payments', token: createStore.token }];
    const createBody = JSON.stringify({ amount: 25.5, email: 'bench@example.com', observation: 'bench' });
    for (const size of options.sizes) {
      const before = (await storedPayments(payments, written)).count;
      const forList = Math.min(LIST_STORE_SIZE - listStoreHolds, Math.max(0, size - before));
      const forOthers = Math.max(0, size - before - forList);
      log(label, `seeding ${forList + forOthers} payments (${before} stored), services paused`);
      const seedStarted = performance.now();
      const step = await withServicesPaused(stack.processes, async () => [
        ...(await seedPayments(payments, shape, keys, [listStore], forList, stack.gatewayUrl)),
        // The rest in one store: the list's cost must not grow with the store (issue 17).
        ...(await seedPayments(payments, shape, keys, [largeStore], forOthers, stack.gatewayUrl)),
      ]);
      if (counters) await countSeeded(jetstream(asPayments), counters, step, `${size}`);
      seeded.push(...step);
      listStoreHolds += forList;
      largeStoreHolds += forOthers;
      written = before + forList + forOthers;
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      if (size === options.sizes[0]) {
        log(label, `warm-up: creates for ${WARMUP_SECONDS} s, not measured`);
        const warmUp = await runLoad({
          baseUrl: stack.gatewayUrl,
          method: 'POST',
          targets: createTargets,
          body: createBody,
          connections: options.connections,
          seconds: WARMUP_SECONDS,
        });
        written += warmUp.ok;
      }
      const stored = await storedPayments(payments, written);

      /** A load with what it cost: database commands per answered request, CPU of each process. */
      const measured = async (what: string, load: () => Promise<Throughput>): Promise<ApiFigure> => {
        log(label, `${what} at ${stored.count} stored`);
        const commandsBefore = await databaseCommands(stack.opsUrls);
        const cpu = new CpuMeter(stack.processes);
        const result = await load();
        const usage = cpu.read();
        log(label, `  ${throughput(result)}`);
        const commandsAfter = await databaseCommands(stack.opsUrls);
        const perRequest =
          commandsBefore === null || commandsAfter === null || result.ok === 0
            ? null
            : (commandsAfter - commandsBefore) / result.ok;
        return { ...result, dbCommandsPerRequest: perRequest, cpu: usage };
      };
      const measureApi = (
        what: string,
        method: 'GET' | 'POST',
        targets: Target[],
        body?: string,
        connections = options.connections,
      ) =>
        measured(what, () =>
          runLoad({ baseUrl: stack.gatewayUrl, method, targets, body, connections, seconds: options.seconds }),
        );
      /** A flash sale: the burst store gets its payments, then its first page is listed. */
      const measureBurst = async (): Promise<BurstFigures> => {
        log(label, `seeding a burst of ${options.burst} payments created in the last two minutes`);
        const step = await withServicesPaused(stack.processes, () =>
          seedPayments(payments, shape, keys, [burstStore], options.burst, stack.gatewayUrl, BURST_WITHIN_MS),
        );
        if (counters && asPayments) await countSeeded(jetstream(asPayments), counters, step, 'burst');
        const firstPage = [{ path: '/public-api/v1/payments?limit=50', token: burstStore.token }];
        // All connections first, while no payments process has listed this store: a cold start.
        const concurrent = await measureApi('list, the burst store, cold', 'GET', firstPage);
        return {
          holds: step.length,
          oneClient: await measureApi('list, one client, the burst store', 'GET', firstPage, undefined, 1),
          concurrent,
          smallStore: await measureApi('list, the 1,000-payment store, after the burst', 'GET', [
            { path: '/public-api/v1/payments?limit=50', token: listStore.token },
          ]),
        };
      };
      /** A month of Pix in one store, then its statement of today and its first page of movements. */
      const measureStatement = async (): Promise<StatementFigures> => {
        log(label, `seeding ${options.statementMovements} balance transactions over 30 days in one store`);
        await withServicesPaused(stack.processes, () =>
          seedMovements(client.db().collection('balance_transactions'), statementStore, options.statementMovements),
        );
        const day = [{ path: `/public-api/v1/statements/${statementDay(new Date())}`, token: statementStore.token }];
        const list = [{ path: '/public-api/v1/balance-transactions?limit=50', token: statementStore.token }];
        return {
          holds: options.statementMovements,
          dayOneClient: await measureApi('statement of today, one client', 'GET', day, undefined, 1),
          day: await measureApi('statement of today', 'GET', day),
          listOneClient: await measureApi('balance transactions, one client', 'GET', list, undefined, 1),
          list: await measureApi('balance transactions', 'GET', list),
        };
      };
      const raw = async (what: string, run: () => Promise<Throughput>) => {
        log(label, `raw ${what} at ${stored.count} stored`);
        const result = await run();
        log(label, `  ${throughput(result)}`);
        return result;
      };

      // Lists last: FerretDB sorts and counts a store's payments in Go, and 32 connections of them
      // leave it busy for a while after the figure ends, which would slow whatever came next.
      const sample = pickSample(seeded, GET_SAMPLE);
      const create = await measureApi('create', 'POST', createTargets, createBody);
      // Right after the closed loop, so the services' JIT is as warm for it as for the other figures.
      const createAtRate = await measured(`create at a fixed ${options.fixedRate}/s`, () =>
        runPaced({
          baseUrl: stack.gatewayUrl,
          method: 'POST',
          targets: createTargets,
          body: createBody,
          count: Math.round(options.fixedRate * options.fixedRateSeconds),
          ratePerSecond: options.fixedRate,
        }),
      );
      const insertOne = await raw('insertOne', () =>
        rawInsertOne(payments, newDocument, options.connections, options.seconds),
      );
      const { confirmation, refund } = await measureConfirmations(label, stack, nc, receiver, webhookStore, options);
      log(label, `${RECONCILED} payments paid with their callback lost, until reconciliation approves them`);
      const reconciliation = await measureReconciliation(
        stack,
        nc,
        receiver,
        reconciledStore,
        RECONCILED,
        options.webhookWaitSeconds,
      );
      log(label, `  ${reconciliation ? reconciliationCell(reconciliation) : 'no reconciliation in this checkout'}`);
      // A merchant gets the payments the API made, each with its view in the read model; seeded
      // payments were written straight to the database, with no view, so they measure its path.
      // (A checkout whose creates all failed has none to get: its seeded ones stand in.)
      const made = await payments
        .find({ storeId: createStore.storeId }, { projection: { _id: 1 }, limit: GET_SAMPLE })
        .toArray();
      const get = await measureApi(
        'get',
        'GET',
        made.length > 0
          ? made.map(({ _id }) => ({ path: `/public-api/v1/payments/${String(_id)}`, token: createStore.token }))
          : sample.map(({ id, store }) => ({ path: `/public-api/v1/payments/${id}`, token: store.token })),
      );
      const getFromDatabase = await measureApi(
        'get, no view',
        'GET',
        sample.map(({ id, store }) => ({ path: `/public-api/v1/payments/${id}`, token: store.token })),
      );
      const findOne = await raw('findOne', () =>
        rawFindOne(
          payments,
          sample.map((s) => s.id),
          options.connections,
          options.seconds,
        ),
      );
      const list = await measureApi('list', 'GET', [
        { path: '/public-api/v1/payments?limit=50', token: listStore.token },
      ]);
      const findAndCount = await raw('find + count', () =>
        rawFindAndCount(payments, listStore.storeId, keys !== null, options.connections, options.seconds),
      );
      const listLargeStore = {
        ...(await measureApi(
          `list, one client, a store of ${largeStoreHolds}`,
          'GET',
          [{ path: '/public-api/v1/payments?limit=50', token: largeStore.token }],
          undefined,
          1,
        )),
        storeHolds: largeStoreHolds,
      };
      const largest = size === options.sizes[options.sizes.length - 1];
      // Idle before the burst: the engine's autovacuum after 20,000 inserts is work, not idleness.
      if (largest) {
        log(label, `idle for ${options.idleSeconds}s after ${options.settleSeconds}s of quiet`);
        await new Promise((resolve) => setTimeout(resolve, options.settleSeconds * 1000));
        const idle = new CpuMeter(stack.processes);
        await new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000));
        idleCpu = idle.read();
      }
      const burst = largest ? await measureBurst() : null;
      const statement = largest ? await measureStatement() : null;
      written +=
        create.ok +
        createAtRate.ok +
        insertOne.ok +
        confirmation.sent +
        (reconciliation?.paid ?? 0) +
        (burst?.holds ?? 0);
      const storedAfter = await storedPayments(payments, written);
      sizes.push({
        size,
        stored,
        storedAfter,
        seedPerSecond: forList + forOthers > 0 ? (forList + forOthers) / seedSeconds : null,
        create,
        createAtRate,
        get,
        getFromDatabase,
        list,
        listLargeStore,
        burst,
        statement,
        rawInsertOne: insertOne,
        rawFindOne: findOne,
        rawFindAndCount: findAndCount,
        confirmation,
        refund,
        reconciliation,
      });
    }

    return {
      label,
      infrastructure: stack.processes.map((p) => p.name).filter((n) => !SERVICES.has(n)),
      bareHttp: bare,
      sizes,
      idleCpu,
      peakRssMiB: stack.processes.map((p) => ({ name: p.name, mib: peakRssMiB(p.pid) })),
    };
  } finally {
    await nc?.close();
    await asPayments?.close();
    await client.close();
    await devstack.stopProcesses(stack.processes);
    if (!options.keepLogs) removeStackDir(devstack, dir);
  }
}

async function measureConfirmations(
  label: string,
  stack: { gatewayUrl: string; opsUrls: Record<string, string> },
  nc: NatsConnection,
  receiver: WebhookReceiver,
  store: BenchStore,
  options: BenchOptions,
): Promise<Pick<SizeResult, 'confirmation' | 'refund'>> {
  log(label, `creating ${options.confirmations} payments with a webhookUrl`);
  const ids = await createWebhookPayments(
    stack.gatewayUrl,
    store,
    receiver,
    options.confirmations,
    options.webhookWaitSeconds,
  );
  const created = ids.filter((id) => receiver.created.has(id)).length;
  log(
    label,
    `${created} of their payment.created webhooks arrived; ${ids.length} confirmations at ${options.confirmationRate}/s`,
  );
  const before = await databaseCommands(stack.opsUrls);
  const result = await confirmAtFixedRate(nc, receiver, ids, options.confirmationRate, options.webhookWaitSeconds);
  const after = await databaseCommands(stack.opsUrls);
  const perPayment = (a: number | null, b: number | null) =>
    a === null || b === null || ids.length === 0 ? null : (b - a) / ids.length;
  const confirmation = { ...result, dbCommandsPerConfirmation: perPayment(before, after) };
  log(label, `  ${latency(confirmation)}`);

  // The confirmed payments are approved: each is refunded in part, at the confirmations' rate.
  const paid = ids.filter((id) => receiver.statusChanged.has(id));
  log(label, `${paid.length} refunds at ${options.confirmationRate}/s`);
  const beforeRefunds = await databaseCommands(stack.opsUrls);
  const refunds = await refundAtFixedRate(
    stack.gatewayUrl,
    store,
    receiver,
    paid,
    options.confirmationRate,
    options.webhookWaitSeconds,
  );
  const refund = { ...refunds, dbCommandsPerRefund: perPayment(beforeRefunds, await databaseCommands(stack.opsUrls)) };
  log(label, `  ${latency(refund)}`);
  return { confirmation, refund };
}
