import { jetStreamAdmin } from '../support/streams';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  statementDay,
  Streams,
  Subjects,
  type BalanceTransaction,
  type BalanceTransactionList,
  type EventType,
  type Statement,
} from '@pix/contracts';
import {
  freePort,
  isAlive,
  natsMemberName,
  processTree,
  startFerretDb,
  startNatsMember,
  startPostgres,
  type ServiceName,
  type Started,
} from '@pix/devstack';
import { createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { withPspDb } from '../support/db';
import { MerchantClient, startLoad, type Attempt, type Created } from '../support/merchant-load';
import { ReadinessWatch } from '../support/readiness-watch';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver';
import { verify } from '../webhooks/helpers';

/**
 * The platform's promise under faults, on the shape production runs: a 3-member JetStream cluster
 * (every stream and bucket in 3 copies) and two replicas of every service. A merchant creates RATE
 * payments a second, each with a webhookUrl and an Idempotency-Key, retrying network errors and 5xx
 * with the same key on the other gateway for up to a minute; every other payment is paid by its
 * customer through the sandbox over HTTP, a share of them with the PSP losing the callback (only the
 * adapter's reconciliation with the PSP finds those). After STEADY_MS with no fault, in turn: kill -9 the NATS
 * member leading PAYMENTS, one replica of each service, and the database (PostgreSQL and FerretDB
 * together), each restarted 3 s later; then the merchant's endpoint answers 503 for 30 s.
 *
 * Besides nothing lost or done twice (one payment per key, every event on PAYMENTS once, delivered
 * under one webhook-id, validly signed, created before status_changed, every stream back to 3
 * copies), it asserts:
 * - every create answered 200 within the client's minute of retries (none given up);
 * - no 503 to a request whose life did not overlap a fault;
 * - after each fault, a create sent after it succeeds within 2 s (the database's: 8 s);
 * - the restart, webhook and backlog figures within LIMITS.
 * It prints the figures per fault beside issue 19's TARGETS, marking each one missed, and how busy
 * the machine was. Where a target and its limit differ, the target is not held on a 2-core machine
 * at issue 19's 50 creates/s (the stack uses about 190 % of its 200 % of CPU there, so a restarted
 * replica loads its modules in 2 to 3 s, and a fault's backlog drains slowly); the limit keeps the
 * figure from getting worse unnoticed. docs/reliability.md has the figures of the latest runs.
 */
/**
 * Creates per second (half of them paid: 1.5 requests and 1.5 webhooks a second per create);
 * CHAOS_RATE overrides it. `make test` runs 6: the machines CI ran on in November 2026 were 100 %
 * busy at 20 (the baseline commit too), so queues grew from the first minute and creates were given
 * up; at 8 the same machine was 87 % busy with a build beside it. The rate is set where CI's machine
 * has room left, so that the test measures recovery from the faults, not a queue
 * (docs/decisions/chaos-rate.md); `make chaos` runs issue 19's 50.
 */
const RATE = Number(process.env.CHAOS_RATE ?? 6);
/** How long the merchant's client retries one request before giving it up. */
const CLIENT_PATIENCE_MS = 60_000;
/** Time between one fault's recovery and the next fault. */
const SETTLE_MS = 5000;
const ENDPOINT_DOWN_MS = 30_000;
/** Retries close enough that a 30 s outage of the endpoint is bridged within the test. */
const RETRY_SCHEDULE = '0s,1s,2s,3s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s';
const RESTART_AFTER_MS = 3000;
/**
 * Load before the first fault: the figures of a steady stack at this rate (503s, webhook latency),
 * printed beside the faults' (CHAOS_STEADY_SECONDS).
 */
const STEADY_MS = Number(process.env.CHAOS_STEADY_SECONDS ?? 60) * 1000;
/** Issue 19's bounds: printed beside the figures, each one missed marked. */
const TARGETS = {
  firstCreateMs: 2000,
  firstCreateAfterDatabaseMs: 5000,
  readyAfterStartMs: 3000,
  webhookP99Ms: 2000,
  /** Every webhook owed during a fault delivered this soon after its recovery (the endpoint's: its retries are at most 5 s apart). */
  owedAfterRecoveryMs: 10_000,
};
/**
 * What is asserted: the targets where every machine seen holds them, and the worst seen with room
 * to spare where not. This VM's speed varies: the same 20 creates/s kept it 57 % busy in one
 * fresh-clone run and 90 % in the next, when the database's first good create took 4.8 s (3 s of
 * it the wait before the restart) and a replica 5.6 s to be ready. The worst of issue 27's three
 * runs at 50 creates/s (the machine 90-99 % busy): a replica ready in 4.0 s, webhook p99 outside
 * the faults 9.9 s, owed webhooks delivered 15.4 s after the endpoint's recovery; about twice that
 * is asserted (readiness: twice the 5.6 s above).
 */
const LIMITS = {
  firstCreateMs: TARGETS.firstCreateMs,
  firstCreateAfterDatabaseMs: 8000,
  readyAfterStartMs: 12_000,
  webhookP99Ms: 20_000,
  owedAfterRecoveryMs: 30_000,
};
/** A fault's first good create: its target and its limit. */
const FIRST_CREATE = {
  afterAnyOther: { firstCreateTargetMs: TARGETS.firstCreateMs, firstCreateBoundMs: LIMITS.firstCreateMs },
  afterDatabase: {
    firstCreateTargetMs: TARGETS.firstCreateAfterDatabaseMs,
    firstCreateBoundMs: LIMITS.firstCreateAfterDatabaseMs,
  },
};
/** A liveness cap, not a figure: what has not happened by then fails the test. */
const CAP_MS = 120_000;

interface Fault {
  name: string;
  /** When it struck, and when it was over (the process back and ready, the stream led, the endpoint answering). */
  start: number;
  recovery: number;
  /** From the restart's spawn until the process was ready (not for the endpoint). */
  readyMs?: number;
  firstCreateMs?: number;
  /** Its first good create's target (printed) and limit (asserted). */
  firstCreateTargetMs: number;
  firstCreateBoundMs: number;
}

/** A webhook the merchant is owed: what caused it and when, and when its first 2xx came. */
interface Owed {
  paymentId: string;
  event: string;
  causedAt: number;
  deliveredAt: number;
}

/** A create of the load (its key alone), not a pay, a refund or a cancel of one. */
const isCreate = (key: string) => /^chaos-\d+$/.test(key);

describe('chaos under load, on a 3-member NATS cluster with two replicas of every service', () => {
  let stack: PrivateStack;
  let nc: NatsConnection;
  const receiver = new WebhookReceiver();
  /** When each delivery was answered, and how. */
  const answered: { hook: ReceivedWebhook; status: number }[] = [];
  /** `paymentId|event` of each event answered 200 at least once: looked up, not searched, while the endpoint serves. */
  const deliveredEvents = new Set<string>();
  let endpointDown = false;
  let secondGateway: string;
  /** Every replica's /readyz, while the faults leave what it checks (NATS, the database) up. */
  let readiness: ReadinessWatch;
  /** Ends the load and every wait when the test ends, passed or failed: nothing of it outlives the suite. */
  const halt = new AbortController();

  beforeAll(async () => {
    stack = await startPrivateStack({
      natsMembers: 3,
      ownPostgres: true,
      env: {
        WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE,
        RATE_LIMIT_REQUESTS: '1000000',
        LOG_LEVEL: 'warn',
        // The Pix whose callbacks the PSP loses are found within the test's convergence cap.
        RECONCILE_INTERVAL: '20s',
      },
    });
    // The second replica of each service; the gateway and the adapter listen on ports of their own.
    const ops = {
      payments: await freePort(),
      'webhook-dispatcher': await freePort(),
      'pix-provider-adapter': await freePort(),
      gateway: await freePort(),
    };
    await stack.startService('payments', {}, ops.payments);
    await stack.startService('webhook-dispatcher', {}, ops['webhook-dispatcher']);
    await stack.startService('pix-provider-adapter', {}, ops['pix-provider-adapter'], {
      adapterHttp: await freePort(),
    });
    const gatewayPort = await freePort();
    await stack.startService('gateway', {}, ops.gateway, { gateway: gatewayPort });
    secondGateway = `http://127.0.0.1:${gatewayPort}`;
    readiness = new ReadinessWatch(
      Object.fromEntries(
        (Object.keys(ops) as ServiceName[]).flatMap((name) => [
          [`${name} 1`, `http://127.0.0.1:${stack.ports.ops[name]}`],
          [`${name} 2`, `http://127.0.0.1:${ops[name]}`],
        ]),
      ),
    );
    nc = await jetStreamAdmin(stack, { reconnect: true });
  }, 240_000);

  afterAll(async () => {
    halt.abort();
    readiness?.stop();
    await nc?.close();
    await receiver.stop();
    await stack?.stop();
  }, 120_000);

  it('loses nothing, does nothing twice, and recovers within its bounds from each fault', async () => {
    const loadAverageAtStart = loadavg()[0]!.toFixed(1);
    // Signatures are checked as each webhook arrives: their timestamps are only good for 5 minutes.
    let secret = '';
    const badSignatures: string[] = [];
    receiver.respond = (hook) => {
      try {
        verify(hook, secret);
      } catch (err) {
        badSignatures.push(`${String(hook.headers['webhook-id'])}: ${String(err)}`);
      }
      const status = endpointDown ? 503 : 200;
      answered.push({ hook, status });
      if (status === 200) deliveredEvents.add(`${String(hook.json.id)}|${String(hook.json.event)}`);
      return status;
    };
    const webhookUrl = await receiver.start();
    const store = await createStore(stack, 'Chaos store');
    secret = store.webhookSecret;
    const client = new MerchantClient([stack.gatewayUrl, secondGateway], store.token, CLIENT_PATIENCE_MS, halt.signal);
    const loadStarted = Date.now();
    const cpuAtStart = cpuTime();
    const load = startLoad({ client, rate: RATE, webhookUrl, keyPrefix: 'chaos' });
    const faults: Fault[] = [];
    readiness.start();
    readiness.watch(true);

    /** Measures the fault's first good create (sent after it struck), then lets the stack settle. */
    const recovered = async (fault: Fault): Promise<void> => {
      const create = await until(halt.signal, () =>
        client.attempts.find((a) => a.sentAt >= fault.start && a.status === 200 && isCreate(a.key)),
      );
      fault.firstCreateMs = create.at - fault.start;
      faults.push(fault);
      process.stdout.write(`chaos: ${JSON.stringify(fault)}\n`);
      await sleep(SETTLE_MS);
    };
    /**
     * Starts a process; readyMs runs from the spawn to its first /readyz 200 when it has an ops port
     * (`opsUrl`), else to the end of `start`. Not to the end of startService, which also waits for
     * the adapter's callback registration at the PSP: the URL the PSP already has, which a starved
     * simulator took tens of seconds to take again while the replica had been ready for long.
     */
    const started = async <T>(
      start: () => Promise<T>,
      opsUrl?: string,
    ): Promise<{ value: T; readyMs: number; readyAt: number }> => {
      const spawned = Date.now();
      let readyAt: number | undefined;
      let starting = true;
      const watch = (async () => {
        while (opsUrl && starting && readyAt === undefined) {
          const status = await fetch(`${opsUrl}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
            async (res) => (await res.arrayBuffer(), res.status),
            () => undefined,
          );
          if (status === 200) readyAt = Date.now();
          else await sleep(100);
        }
      })();
      const value = await start().finally(() => (starting = false));
      await watch;
      readyAt ??= Date.now();
      return { value, readyMs: readyAt - spawned, readyAt };
    };

    await sleep(STEADY_MS);
    const steadyEnded = Date.now();
    const cpuAfterSteady = cpuTime();

    // 1. The NATS member that leads PAYMENTS: the stream elects another leader among the two left.
    // A replica connected to it is not ready until it has reconnected: a true answer, not watched.
    readiness.watch(false);
    const jsm = await jetstreamManager(nc);
    const leader = (await jsm.streams.info(Streams.payments.name)).cluster?.leader;
    const members = stack.ports.natsCluster!;
    const index = members.findIndex((_, i) => natsMemberName(i) === leader);
    expect(index).toBeGreaterThanOrEqual(0);
    const natsStart = Date.now();
    const killedNats = kill9(stack, natsMemberName(index));
    await sleep(RESTART_AFTER_MS);
    const member = await started(() => startNatsMember(stack.dir, members, index, false));
    stack.replaceProcess(killedNats, member.value);
    // Over once the member is back and PAYMENTS has a leader again (publishes go through).
    await eventually(
      () =>
        jsm.streams.info(Streams.payments.name).then(
          (i) => i.cluster?.leader,
          () => undefined,
        ),
      (led) => led !== undefined,
      CAP_MS,
      100,
    );
    await recovered({
      name: `kill -9 NATS member leading PAYMENTS (${leader})`,
      start: natsStart,
      recovery: Date.now(),
      readyMs: member.readyMs,
      ...FIRST_CREATE.afterAnyOther,
    });

    // 2. One replica of each service: the other carries on, and the killed one is restarted as
    // Kubernetes would.
    // Every other replica stays ready throughout, under the load and the backlog of the killed one.
    readiness.watch(true);
    for (const name of ['payments', 'pix-provider-adapter', 'webhook-dispatcher', 'gateway'] as ServiceName[]) {
      const start = Date.now();
      // The oldest replica: the stack's first, on the stack's own ports, where it comes back.
      readiness.setDown(`${name} 1`, true);
      kill9(stack, name);
      await sleep(RESTART_AFTER_MS);
      const restarted = await started(() => stack.startService(name, {}, stack.ports.ops[name]), stack.opsUrls[name]);
      readiness.setDown(`${name} 1`, false);
      await recovered({
        name: `kill -9 one ${name} replica`,
        start,
        // Over once the replica is back and ready.
        recovery: restarted.readyAt,
        readyMs: restarted.readyMs,
        ...FIRST_CREATE.afterAnyOther,
      });
    }

    // 3. The database: PostgreSQL and FerretDB killed together (PostgreSQL then recovers from its
    // log, so what was acknowledged must survive), restarted after a few seconds. Every replica
    // rightly answers not ready while it is gone.
    readiness.watch(false);
    const dbStart = Date.now();
    const killedPostgres = kill9(stack, 'postgres');
    const killedFerret = kill9(stack, 'ferretdb');
    await sleep(RESTART_AFTER_MS);
    const database = await started(async () => {
      stack.replaceProcess(killedPostgres, (await startPostgres(stack.dir, stack.ports.postgres, false)).started);
      stack.replaceProcess(
        killedFerret,
        await startFerretDb(stack.dir, stack.ports.mongo, stack.ports.mongoDebug, false, stack.postgres!),
      );
    });
    await recovered({
      name: 'kill -9 PostgreSQL and FerretDB',
      start: dbStart,
      recovery: Date.now(),
      readyMs: database.readyMs,
      ...FIRST_CREATE.afterDatabase,
    });

    // 4. The merchant's endpoint answers 503 for 30 s: its deliveries wait, retried, and then arrive.
    const endpointStart = Date.now();
    endpointDown = true;
    await sleep(ENDPOINT_DOWN_MS);
    endpointDown = false;
    await recovered({
      name: 'merchant endpoint answers 503 for 30 s',
      start: endpointStart,
      recovery: Date.now(),
      ...FIRST_CREATE.afterAnyOther,
    });

    const { created: payments, failed } = await load.stop();
    // The load's own span: from the first create sent to the last (its rate is what was offered).
    const loadSeconds = (payments.at(-1)!.firstSentAt - payments[0]!.firstSentAt) / 1000;
    await converged(payments, store);
    const cpuAtEnd = cpuTime();

    const owed = owedWebhooks(payments, client);
    const steady = owed.filter((o) => o.causedAt >= loadStarted && o.causedAt < steadyEnded);
    const outside = owed.filter((o) => !faults.some((f) => owedDuring(o, f)));
    const steadyAttempts = client.attempts.filter((a) => a.sentAt >= loadStarted && a.sentAt < steadyEnded);
    // A request sent during a fault and answered 503 after its recovery (a timeout) is the fault's.
    const overlapsFault = (a: { sentAt: number; at: number }) =>
      faults.some((f) => a.at >= f.start && a.sentAt <= f.recovery);
    const unexpected503 = client.attempts.filter((a) => a.status === 503 && !overlapsFault(a));
    const late = faults.flatMap((f) =>
      owed
        .filter((o) => owedDuring(o, f) && o.deliveredAt - f.recovery > LIMITS.owedAfterRecoveryMs)
        .map(
          (o) => `${f.name}: ${o.event} of ${o.paymentId} ${((o.deliveredAt - f.recovery) / 1000).toFixed(1)} s after`,
        ),
    );

    console.log(
      [
        `chaos: ${payments.length} payments in ${loadSeconds.toFixed(0)} s (${(payments.length / loadSeconds).toFixed(1)} creates/s), ` +
          `${payments.filter((p) => p.paid).length} paid (${payments.filter((p) => p.callbackDropped).length} ` +
          `with the callback lost), ${payments.flatMap((p) => p.refunds).length} refunds, ` +
          `${payments.filter((p) => p.cancelled).length} cancelled; ${client.attempts.length} requests, ` +
          `${client.attempts.filter((a) => a.status === 503).length} answered 503, ` +
          `${client.attempts.filter((a) => a.status === 0).length} without an answer, ${client.givenUp.length} given up`,
        `chaos: machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average ${loadAverageAtStart}` +
          ` before the load; busy ${busy(cpuAtStart, cpuAfterSteady)} before any fault, ${busy(cpuAtStart, cpuAtEnd)} in all`,
        `chaos: before any fault, ${((steadyEnded - loadStarted) / 1000).toFixed(0)} s: ${steadyAttempts.length} requests, ` +
          `${steadyAttempts.filter((a) => a.status === 503).length} answered 503; webhooks ${latencies(steady)}`,
        `chaos: webhooks outside the faults ${latencies(outside)}` +
          mark(quantile(delays(outside), 0.99), TARGETS.webhookP99Ms),
        `chaos: slowest outside the faults: ${slowest(outside, faults, loadStarted)}`,
        `chaos: readiness of every replica not killed, before any fault and across the services' faults: ` +
          `${readiness.answered} probes answered, ${readiness.notReady.length} not ready, ` +
          `${readiness.unanswered} not answered within 2 s`,
        faultTable(faults, owed, client),
        `chaos: the last owed webhook of each fault: ${lastOwed(faults, owed)}`,
        `chaos: * missed issue 19's target (first good create ${TARGETS.firstCreateMs / 1000} s, the database's ` +
          `${TARGETS.firstCreateAfterDatabaseMs / 1000} s; ready ${TARGETS.readyAfterStartMs / 1000} s; ` +
          `owed webhooks ${TARGETS.owedAfterRecoveryMs / 1000} s after recovery; p99 ${TARGETS.webhookP99Ms / 1000} s outside faults)`,
      ].join('\n'),
    );

    // Every create answered 200 in the end, within the client's patience, one payment per key.
    expect({ givenUp: client.givenUp, failed }).toEqual({ givenUp: [], failed: [] });
    expect(new Set(payments.map((p) => p.id)).size).toBe(payments.length);
    for (const [key, ids] of client.answers) expect({ key, ids: new Set(ids).size }).toEqual({ key, ids: 1 });
    // A fault is a 503 (or no answer from a replica that is gone), never a 500; and no 503 without one.
    // Each with what it was told: the 5xx's message names the part that failed.
    const told = (a: Attempt) => `${a.key} answered ${a.status} at ${new Date(a.at).toISOString()}: ${a.why ?? ''}`;
    expect(client.attempts.filter((a) => ![0, 200, 409, 503].includes(a.status)).map(told)).toEqual([]);
    expect(unexpected503.map(told)).toEqual([]);
    // Readiness tells the truth under load: no replica whose NATS and database work said it was not ready.
    expect(
      readiness.notReady.map((n) => `${n.replica} ${n.status} at ${new Date(n.at).toISOString()}: ${n.body}`),
    ).toEqual([]);
    expect(readiness.answered).toBeGreaterThan(0);

    // The bounds of each fault, and of the webhooks.
    for (const f of faults) {
      expect({ fault: f.name, firstCreateWithinBound: f.firstCreateMs! <= f.firstCreateBoundMs }).toEqual({
        fault: f.name,
        firstCreateWithinBound: true,
      });
      if (f.readyMs !== undefined) {
        expect({ fault: f.name, readyWithinBound: f.readyMs <= LIMITS.readyAfterStartMs }).toEqual({
          fault: f.name,
          readyWithinBound: true,
        });
      }
    }
    expect(quantile(delays(outside), 0.99)).toBeLessThanOrEqual(LIMITS.webhookP99Ms);
    expect(late).toEqual([]);

    // None lost, none created twice: the store has exactly these, and each event is on PAYMENTS once.
    const paid = payments.filter((p) => p.paid);
    // Reconciliation found every Pix whose callback the PSP lost: each counts among the approved below.
    expect(paid.filter((p) => p.callbackDropped).length).toBeGreaterThan(0);
    const cancelled = payments.filter((p) => p.cancelled);
    const refunds = payments.flatMap((p) => p.refunds);
    expect(await total(secondGateway, store, '')).toBe(payments.length);
    expect(await total(secondGateway, store, '&status=approved')).toBe(paid.length);
    expect(await storedEvents('payment.created')).toBe(payments.length);
    expect(await storedEvents('payment.status_changed')).toBe(paid.length + cancelled.length);
    expect(await storedEvents('refund.created')).toBe(refunds.length);
    expect(await storedEvents('refund.succeeded')).toBe(refunds.length);

    // Money went back exactly once: every refund reached the PSP as one devolução, asked once, and
    // settled; each payment's refundedAmount is the sum of its refunds; cancelled ones stayed so.
    await moneyWentBack(payments, store);
    // The store's statement adds up to the same: each movement written once, none lost.
    await statementAddsUp(payments, store);

    // The restarted NATS member holds its copy of every stream again: the cluster is back to
    // surviving the loss of any one member.
    expect(await streamCopies()).toEqual(Object.values(Streams).map((s) => `${s.name}: 3 current`));

    // Every event delivered, each under one webhook-id, signed, created before status_changed.
    const hooksOf = new Map<string, ReceivedWebhook[]>();
    for (const h of receiver.received) hooksOf.set(String(h.json.id), [...(hooksOf.get(String(h.json.id)) ?? []), h]);
    for (const payment of payments) {
      const hooks = hooksOf.get(payment.id) ?? [];
      const created = hooks.filter((h) => h.json.event === 'payment.created');
      const changed = hooks.filter((h) => h.json.event === 'payment.status_changed');
      expect(new Set(created.map((h) => h.headers['webhook-id'])).size).toBe(1);
      expect(new Set(changed.map((h) => h.headers['webhook-id'])).size).toBe(payment.paid || payment.cancelled ? 1 : 0);
      if (payment.paid || payment.cancelled) {
        expect(hooks.indexOf(created[0]!)).toBeLessThan(hooks.indexOf(changed[0]!));
        expect(changed.every((h) => h.json.status === (payment.paid ? 'approved' : 'not_approved'))).toBe(true);
      }
      // Each refund's webhooks under one webhook-id each, after the payment's approval.
      for (const refund of payment.refunds) {
        const refundHooks = hooksOf.get(refund.id) ?? [];
        for (const event of ['refund.created', 'refund.succeeded']) {
          const ids = new Set(refundHooks.filter((h) => h.json.event === event).map((h) => h.headers['webhook-id']));
          expect({ refund: refund.id, event, ids: ids.size }).toEqual({ refund: refund.id, event, ids: 1 });
        }
        expect(refundHooks.every((h) => h.at >= changed[0]!.at)).toBe(true);
      }
    }
    expect(badSignatures).toEqual([]);
  }, 900_000);

  /**
   * Refunds and cancels under the faults: each refund is one devolução at the sandbox PSP, asked of
   * it once (its PUT counted), settled; every refunded payment's refundedAmount is its refunds'
   * sum; every cancelled payment is not_approved with its charge removed at the PSP.
   */
  async function moneyWentBack(payments: Created[], store: StoreCredentials): Promise<void> {
    const refunds = payments.flatMap((p) => p.refunds.map((r) => ({ ...r, paymentId: p.id })));
    const refunded = payments.filter((p) => p.refunds.length > 0);
    const atPsp = await withPspDb(stack, (db) =>
      db
        .collection<{ endToEndId: string; requests: number; amountCents: number; devolucao: { status: string } }>(
          'sandbox_psp_refunds',
        )
        .find({})
        .toArray(),
    );
    expect(atPsp).toHaveLength(refunds.length);
    expect(atPsp.filter((r) => r.requests !== 1 || r.devolucao.status !== 'DEVOLVIDO')).toEqual([]);
    for (const payment of refunded) {
      const read = await api<{ refundedAmount: number; status: string }>(
        secondGateway,
        'GET',
        `/public-api/v1/payments/${payment.id}`,
        { token: store.token },
      );
      const list = await api<{ items: { id: string; status: string; amount: number }[] }>(
        secondGateway,
        'GET',
        `/public-api/v1/payments/${payment.id}/refunds`,
        { token: store.token },
      );
      const asked = payment.refunds.map((r) => r.id).sort();
      expect({ payment: payment.id, refunds: list.body.items.map((r) => [r.id, r.status]).sort() }).toEqual({
        payment: payment.id,
        refunds: asked.map((id) => [id, 'succeeded']),
      });
      const sum = payment.refunds.reduce((total, r) => total + r.amountCents, 0);
      expect({ payment: payment.id, refundedCents: Math.round(read.body.refundedAmount * 100) }).toEqual({
        payment: payment.id,
        refundedCents: sum,
      });
      expect(read.body.status).toBe('approved');
    }
    const cancelled = payments.filter((p) => p.cancelled);
    const cobs = await withPspDb(stack, (db) =>
      db
        .collection<{ _id: string; cob: { status: string } }>('sandbox_psp_cobs')
        .find({ _id: { $in: cancelled.map((p) => p.id.replace(/-/g, '')) } })
        .toArray(),
    );
    expect(cobs.filter((c) => c.cob.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR').map((c) => c._id)).toEqual([]);
    for (const payment of cancelled) {
      const read = await api<{ status: string }>(secondGateway, 'GET', `/public-api/v1/payments/${payment.id}`, {
        token: store.token,
      });
      expect({ payment: payment.id, status: read.body.status }).toEqual({
        payment: payment.id,
        status: 'not_approved',
      });
    }
  }

  /**
   * The store's balance transactions are the run's money, each movement once: one pix_received per
   * paid payment for its amount, one refund per refund for minus its amount, nothing else. The
   * statements of the days the run spans (São Paulo's; a run near midnight spans two) sum to it.
   */
  async function statementAddsUp(payments: Created[], store: StoreCredentials): Promise<void> {
    const read = async <T>(path: string) =>
      (
        await eventually(
          () => api<T>(secondGateway, 'GET', path, { token: store.token }),
          (r) => r.status === 200,
          60_000,
          1000,
        )
      ).body;
    const amountCents = new Map<string, number>();
    for (let page = 1; ; page++) {
      const { items } = await read<{ items: { id: string; amount: number }[] }>(
        `/public-api/v1/payments?status=approved&limit=200&page=${page}`,
      );
      for (const p of items) amountCents.set(p.id, Math.round(p.amount * 100));
      if (items.length < 200) break;
    }
    const movements: BalanceTransaction[] = [];
    for (let page = 1; ; page++) {
      const { items } = await read<BalanceTransactionList>(
        `/public-api/v1/balance-transactions?limit=200&page=${page}`,
      );
      movements.push(...items);
      if (items.length < 200) break;
    }
    const cents = (m: BalanceTransaction) => Math.round(m.amount * 100);
    const expected = [
      ...payments.filter((p) => p.paid).map((p) => `pix_received ${p.id} ${amountCents.get(p.id)}`),
      ...payments.flatMap((p) => p.refunds.map((r) => `refund ${p.id} ${r.id} ${-r.amountCents}`)),
    ].sort();
    const written = movements
      .map((m) => [m.type, m.paymentId, ...(m.refundId ? [m.refundId] : []), cents(m)].join(' '))
      .sort();
    expect(written).toEqual(expected);
    expect(new Set(movements.map((m) => m.id)).size).toBe(movements.length);

    const days = [...new Set(movements.map((m) => statementDay(new Date(m.createdAt))))];
    const statements = await Promise.all(days.map((day) => read<Statement>(`/public-api/v1/statements/${day}`)));
    const sum = (f: (s: Statement) => number) => Math.round(statements.reduce((t, s) => t + f(s) * 100, 0));
    const moved = (type: string) => movements.filter((m) => m.type === type);
    const movedCents = (type: string) => moved(type).reduce((t, m) => t + Math.abs(cents(m)), 0);
    expect({
      received: sum((s) => s.received),
      receivedCount: sum((s) => s.counts.received) / 100,
      refunded: sum((s) => s.refunded),
      refundedCount: sum((s) => s.counts.refunded) / 100,
      net: sum((s) => s.net),
    }).toEqual({
      received: movedCents('pix_received'),
      receivedCount: moved('pix_received').length,
      refunded: movedCents('refund'),
      refundedCount: moved('refund').length,
      net: movedCents('pix_received') - movedCents('refund'),
    });
  }

  /** Each event's cause (the answer of the create or the pay) and its first 2xx at the endpoint. */
  function owedWebhooks(payments: Created[], client: MerchantClient): Owed[] {
    const answeredAt = new Map<string, number>();
    // A cancel retried after an earlier attempt made it (its answer lost) is answered 409: the
    // change happened before that answer.
    const final = (a: { key: string; status: number }) =>
      a.status === 200 || (a.status === 409 && a.key.endsWith(':cancel'));
    for (const a of client.attempts) if (final(a) && !answeredAt.has(a.key)) answeredAt.set(a.key, a.at);
    const deliveredAt = new Map<string, number>();
    for (const { hook, status } of answered) {
      const key = `${String(hook.json.id)}|${String(hook.json.event)}`;
      if (status === 200 && !deliveredAt.has(key)) deliveredAt.set(key, hook.at);
    }
    return payments.flatMap((p) => {
      // [what caused it (its request's key), the event, whose id the webhook carries]
      const causes: [string, string, string][] = [[p.key, 'payment.created', p.id]];
      // A Pix whose callback the PSP lost is told by the next reconciliation (RECONCILE_INTERVAL), on purpose late.
      if (p.paid && !p.callbackDropped) causes.push([`${p.key}:pay`, 'payment.status_changed', p.id]);
      if (p.cancelled) causes.push([`${p.key}:cancel`, 'payment.status_changed', p.id]);
      for (const r of p.refunds) causes.push([r.key, 'refund.created', r.id]);
      return causes.map(([key, event, id]) => ({
        paymentId: p.id,
        event,
        causedAt: answeredAt.get(key)!,
        deliveredAt: deliveredAt.get(`${id}|${event}`)!,
      }));
    });
  }

  /** Waits until every payment's events were delivered (answered 200); a failure says where each missing one stands. */
  async function converged(payments: Created[], store: StoreCredentials): Promise<void> {
    const delivered = (id: string, event: string) => deliveredEvents.has(`${id}|${event}`);
    const deadline = Date.now() + CAP_MS;
    for (;;) {
      const missing = payments.filter(
        (p) =>
          !delivered(p.id, 'payment.created') ||
          ((p.paid || p.cancelled) && !delivered(p.id, 'payment.status_changed')) ||
          p.refunds.some((r) => !delivered(r.id, 'refund.created') || !delivered(r.id, 'refund.succeeded')),
      );
      if (missing.length === 0) return;
      if (Date.now() > deadline) {
        const where = await Promise.all(missing.slice(0, 5).map((p) => whereIs(p, store)));
        throw new Error(`${missing.length} payments' events not delivered; e.g.\n${where.join('\n')}`);
      }
      await sleep(500);
    }
  }

  /** A missing payment as the merchant can see it (the payment, its events' delivery state) and as the endpoint saw it. */
  async function whereIs(payment: Created, store: StoreCredentials): Promise<string> {
    const read = (path: string) =>
      api(secondGateway, 'GET', path, { token: store.token }).then(
        (res) => res.body,
        (err: unknown) => String(err),
      );
    const events = (await read(`/public-api/v1/events?paymentId=${payment.id}`)) as { items?: unknown[] };
    return JSON.stringify({
      payment: await read(`/public-api/v1/payments/${payment.id}`),
      events: events.items ?? events,
      received: answered
        .filter(({ hook }) => hook.json.id === payment.id || hook.json.paymentId === payment.id)
        .map(({ hook, status }) => ({ event: hook.json.event, at: new Date(hook.at).toISOString(), status })),
    });
  }

  /** Per stream, how many members hold a current copy (the leader and its caught-up replicas); a copy may still be catching up for a while. */
  async function streamCopies(): Promise<string[]> {
    const jsm = await jetstreamManager(nc);
    const read = () =>
      Promise.all(
        Object.values(Streams).map(async ({ name }) => {
          const { cluster } = await jsm.streams.info(name);
          const current = (cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length;
          return `${name}: ${(cluster?.leader ? 1 : 0) + current} current`;
        }),
      );
    return eventually(read, (copies) => copies.every((c) => c.endsWith(': 3 current')), CAP_MS, 1000);
  }

  async function storedEvents(type: EventType): Promise<number> {
    const subject = Subjects.paymentEventsOfType(type);
    const info = await (await jetstreamManager(nc)).streams.info(Streams.payments.name, { subjects_filter: subject });
    return Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
  }
});

/** The machine's CPU time so far, busy and in all, summed over its cores (ms). */
function cpuTime(): { busy: number; all: number } {
  let busy = 0;
  let all = 0;
  for (const { times } of cpus()) {
    const sum = times.user + times.nice + times.sys + times.irq + times.idle;
    all += sum;
    busy += sum - times.idle;
  }
  return { busy, all };
}

/** How busy the whole machine was between two readings, as a share of all its cores. */
function busy(from: { busy: number; all: number }, to: { busy: number; all: number }): string {
  return `${Math.round((100 * (to.busy - from.busy)) / Math.max(1, to.all - from.all))} %`;
}

/** An event is owed during a fault when it was caused before the fault was over and not delivered when it struck. */
function owedDuring(o: Owed, f: Fault): boolean {
  return o.causedAt <= f.recovery && o.deliveredAt > f.start;
}

/** Of the webhooks owed during a fault, the one delivered last (none owed: undefined). */
function lastOwedDuring(f: Fault, owed: Owed[]): Owed | undefined {
  let last: Owed | undefined;
  for (const o of owed) if (owedDuring(o, f) && (!last || o.deliveredAt > last.deliveredAt)) last = o;
  return last;
}

/** Which webhook owed during each fault came last, and when it was caused: what the table's last column waited on. */
function lastOwed(faults: Fault[], owed: Owed[]): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return faults
    .flatMap((f) => {
      const last = lastOwedDuring(f, owed);
      if (!last) return [];
      const caused = last.causedAt - f.start;
      return [
        `${f.name}: ${last.event} of ${last.paymentId} caused ${seconds(Math.abs(caused))} ${caused < 0 ? 'before' : 'after'} it struck, ` +
          `delivered ${seconds(last.deliveredAt - f.recovery)} after its recovery`,
      ];
    })
    .join('; ');
}

/** The per-fault figures, as a table. */
function faultTable(faults: Fault[], owed: Owed[], client: MerchantClient): string {
  const seconds = (ms: number | undefined) => (ms === undefined ? '–' : (ms / 1000).toFixed(1));
  const rows = faults.map((f) => {
    const during = owed.filter((o) => owedDuring(o, f));
    const last = lastOwedDuring(f, owed);
    const afterRecovery = last && last.deliveredAt - f.recovery;
    const attempts = client.attempts.filter((a) => a.at >= f.start && a.sentAt <= f.recovery);
    return [
      f.name,
      `${seconds(f.recovery - f.start)}`,
      `${attempts.filter((a) => a.status === 503).length} / ${attempts.filter((a) => a.status === 0).length}`,
      seconds(f.firstCreateMs) + mark(f.firstCreateMs, f.firstCreateTargetMs),
      seconds(f.readyMs) + mark(f.readyMs, TARGETS.readyAfterStartMs),
      `${during.length}`,
      seconds(afterRecovery) + mark(afterRecovery, TARGETS.owedAfterRecoveryMs),
    ];
  });
  const header = [
    'fault',
    'over after (s)',
    '503 / no answer',
    'first good create (s)',
    'restarted ready (s)',
    'webhooks owed',
    'last delivered after recovery (s)',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return ['chaos: per fault', line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** ' *' when a figure missed its target. */
function mark(ms: number | undefined, targetMs: number): string {
  return ms !== undefined && ms > targetMs ? ' *' : '';
}

/** The five slowest webhooks: when they were caused, after which fault, and how long they took. */
function slowest(owed: Owed[], faults: Fault[], loadStarted: number): string {
  return [...owed]
    .sort((x, y) => y.deliveredAt - y.causedAt - (x.deliveredAt - x.causedAt))
    .slice(0, 5)
    .map((o) => {
      const before = faults.filter((f) => f.recovery <= o.causedAt).at(-1);
      const since = before
        ? `${((o.causedAt - before.recovery) / 1000).toFixed(1)} s after ${before.name}`
        : 'no fault before';
      return `${o.event} caused at ${((o.causedAt - loadStarted) / 1000).toFixed(1)} s (${since}) took ${((o.deliveredAt - o.causedAt) / 1000).toFixed(1)} s`;
    })
    .join('; ');
}

/** From each webhook's cause to its delivery. */
function delays(owed: Owed[]): number[] {
  return owed.map((o) => o.deliveredAt - o.causedAt);
}

function latencies(owed: Owed[]): string {
  const ms = delays(owed);
  return `(${ms.length}) after their cause: p50 ${quantile(ms, 0.5)} ms, p99 ${quantile(ms, 0.99)} ms, max ${Math.max(...ms)} ms`;
}

/** kill -9 of the oldest live process of that name in the stack (PostgreSQL with its backends). */
function kill9(stack: PrivateStack, name: string): Started {
  const proc = stack.processesOf(name as ServiceName).find((p) => isAlive(p.pid));
  if (!proc) throw new Error(`no live ${name} in the stack`);
  // Listed before the kill: once their parent is gone they belong to init.
  for (const pid of processTree(proc.pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // a backend that had just ended by itself
    }
  }
  return proc;
}

async function until<T>(halt: AbortSignal, find: () => T | undefined): Promise<T> {
  const deadline = Date.now() + CAP_MS;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (halt.aborted) throw new Error('the test ended first');
    if (Date.now() > deadline) throw new Error(`not recovered within ${CAP_MS} ms`);
    await sleep(100);
  }
}

async function total(gateway: string, store: StoreCredentials, filter: string): Promise<number> {
  // On a loaded machine a list may answer 503 once: retried, as a client would.
  const res = await eventually(
    () => api<{ total: number }>(gateway, 'GET', `/public-api/v1/payments?limit=1${filter}`, { token: store.token }),
    (r) => r.status === 200,
    60_000,
    1000,
  );
  return res.body.total;
}
