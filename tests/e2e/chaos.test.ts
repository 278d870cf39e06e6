import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Streams, Subjects } from '@pix/contracts';
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
import { MerchantClient, startLoad, type Created } from '../support/merchant-load';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver';
import { verify } from '../webhooks/helpers';

/**
 * The platform's promise under faults, on the shape production runs: a 3-member JetStream cluster
 * (every stream and bucket in 3 copies) and two replicas of every service. A merchant creates
 * RATE payments a second, each with a webhookUrl and an Idempotency-Key, retrying network errors
 * and 5xx with the same key on the other gateway; every other payment is paid by its customer.
 * After STEADY_MS of load with no fault (its 503s and webhook latency are printed), in
 * turn: kill -9 the NATS member leading PAYMENTS, one replica of each service, the database (the
 * PostgreSQL server and FerretDB together, as when its machine dies), then the merchant's endpoint
 * answers 503 for 30 s. Afterwards: every create answered 200 with one payment per key, no 500 ever,
 * every paid payment approved, every event delivered at least once under one webhook-id, validly
 * signed, payment.created before payment.status_changed.
 */
/** Creates per second (half of them paid, so about 30 requests a second in all); CHAOS_RATE overrides it. */
const RATE = Number(process.env.CHAOS_RATE ?? 20);
/** Time between one fault's creates coming back and the next fault. */
const SETTLE_MS = 4000;
const ENDPOINT_DOWN_MS = 30_000;
/** Retries close enough that a 30 s outage of the endpoint is bridged within the test. */
const RETRY_SCHEDULE = '0s,1s,2s,3s,5s,5s,5s,5s,5s,5s,5s,5s,5s,5s';
/**
 * A recovery not seen within this fails the test: a bound on liveness, not a timing assertion
 * (the figures are printed, never asserted; this is a shared machine).
 */
const RECOVERY_CAP_MS = 120_000;
const RESTART_AFTER_MS = 3000;
/**
 * Load before the first fault: the figures of a steady stack at this rate (503s, webhook latency),
 * printed beside the faults' (issue 17 asks for 60 s of them).
 */
const STEADY_MS = Number(process.env.CHAOS_STEADY_SECONDS ?? 60) * 1000;

interface Recovery {
  fault: string;
  createMs: number;
  deliveryMs?: number;
}

describe('chaos under load, on a 3-member NATS cluster with two replicas of every service', () => {
  let stack: PrivateStack;
  let nc: NatsConnection;
  const receiver = new WebhookReceiver();
  /** When each delivery was answered, and how. */
  const answered: { hook: ReceivedWebhook; status: number }[] = [];
  let endpointDown = false;
  let secondGateway: string;
  /** Ends the load and every wait when the test ends, passed or failed: nothing of it outlives the suite. */
  const halt = new AbortController();

  beforeAll(async () => {
    stack = await startPrivateStack({
      natsMembers: 3,
      ownPostgres: true,
      env: { WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE, RATE_LIMIT_REQUESTS: '1000000', LOG_LEVEL: 'warn' },
    });
    // The second replica of each service; the gateway and the adapter listen on ports of their own.
    await stack.startService('payments');
    await stack.startService('webhook-dispatcher');
    await stack.startService('pix-provider-adapter', {}, undefined, {
      adapterHttp: await freePort(),
    });
    const gatewayPort = await freePort();
    await stack.startService('gateway', {}, undefined, { gateway: gatewayPort });
    secondGateway = `http://127.0.0.1:${gatewayPort}`;
    nc = await connect({ servers: stack.natsUrl.split(','), maxReconnectAttempts: -1 });
  }, 240_000);

  afterAll(async () => {
    halt.abort();
    await nc?.close();
    await receiver.stop();
    await stack?.stop();
  }, 120_000);

  it('loses nothing and does nothing twice across each fault', async () => {
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
      return status;
    };
    const webhookUrl = await receiver.start();
    const store = await createStore(stack.natsUrl, 'Chaos store');
    secret = store.webhookSecret;
    const client = new MerchantClient(
      [stack.gatewayUrl, secondGateway],
      store.token,
      Date.now() + 360_000,
      halt.signal,
    );
    const loadStarted = Date.now();
    const load = startLoad({ client, rate: RATE, webhookUrl, keyPrefix: 'chaos' });
    const recoveries: Recovery[] = [];

    const deliveries: Promise<void>[] = [];
    /**
     * Waits until a create sent after `since` succeeded; the time until an event was delivered (one
     * of a payment created after `since`, unless `freshOnly` is false) is measured meanwhile, while
     * the next fault goes on, so that a slow delivery does not hold the whole test up.
     */
    const recovery = async (fault: string, since: number, freshOnly = true): Promise<void> => {
      const createAt = await until(halt.signal, () =>
        client.attempts.find((a) => a.sentAt >= since && a.status === 200 && !a.key.endsWith(':pay')),
      );
      const measured: Recovery = { fault, createMs: createAt.at - since };
      recoveries.push(measured);
      const delivery = until(halt.signal, () =>
        answered.find(
          ({ hook, status }) =>
            status === 200 && hook.at >= since && (!freshOnly || Date.parse(String(hook.json.createdAt)) >= since),
        ),
      ).then((delivered) => {
        measured.deliveryMs = delivered.hook.at - since;
        // As it happens, so that a run that fails later still shows how far it got.
        process.stdout.write(`chaos: ${JSON.stringify(measured)}\n`);
      });
      // Awaited at the end; when the test fails before that, its rejection is not unhandled.
      delivery.catch(() => undefined);
      deliveries.push(delivery);
      await sleep(SETTLE_MS);
    };

    await sleep(STEADY_MS);
    const steadyEnded = Date.now();

    // 1. The NATS member that leads PAYMENTS: the stream elects another leader among the two left.
    const leader = (await (await jetstreamManager(nc)).streams.info(Streams.payments.name)).cluster?.leader;
    const members = stack.ports.natsCluster!;
    const index = members.findIndex((_, i) => natsMemberName(i) === leader);
    expect(index).toBeGreaterThanOrEqual(0);
    const natsFault = Date.now();
    const killedNats = kill9(stack, natsMemberName(index));
    await sleep(RESTART_AFTER_MS);
    stack.replaceProcess(killedNats, await startNatsMember(stack.dir, members, index, false));
    await recovery(`kill -9 NATS member ${leader} (PAYMENTS leader), restarted after 3 s`, natsFault);

    // 2. One replica of each service: the other carries on, while it restarts (as Kubernetes would).
    const restarts: Promise<unknown>[] = [];
    for (const name of ['payments', 'pix-provider-adapter', 'webhook-dispatcher', 'gateway'] as ServiceName[]) {
      const since = Date.now();
      kill9(stack, name);
      await recovery(`kill -9 one ${name} replica`, since);
      restarts.push(stack.startService(name, {}, stack.ports.ops[name]));
    }
    await Promise.all(restarts);

    // 3. The database: PostgreSQL and FerretDB killed together, restarted after a few seconds.
    const dbFault = Date.now();
    const killedPostgres = kill9(stack, 'postgres');
    const killedFerret = kill9(stack, 'ferretdb');
    await sleep(RESTART_AFTER_MS);
    stack.replaceProcess(killedPostgres, (await startPostgres(stack.dir, stack.ports.postgres, false)).started);
    stack.replaceProcess(
      killedFerret,
      await startFerretDb(stack.dir, stack.ports.mongo, stack.ports.mongoDebug, false, stack.postgresUrl!),
    );
    await recovery('kill -9 PostgreSQL and FerretDB, restarted after 3 s', dbFault);

    // 4. The merchant's endpoint answers 503 for 30 s: its deliveries wait, retried, and then arrive.
    endpointDown = true;
    await sleep(ENDPOINT_DOWN_MS);
    endpointDown = false;
    await recovery('merchant endpoint 503 for 30 s (from its end)', Date.now(), false);

    const payments = await load.stop();
    await Promise.all(deliveries);
    // The load's own span: from the first create sent to the last (its rate is what was offered).
    const loadSeconds = (payments.at(-1)!.firstSentAt - payments[0]!.firstSentAt) / 1000;
    await converged(payments, store);
    report(recoveries, payments, loadSeconds, client);
    reportSteady(steadyWindow(payments, client, answered, loadStarted, steadyEnded));

    // Every create answered 200 in the end, one payment per key, every retry naming the same one.
    expect(new Set(payments.map((p) => p.id)).size).toBe(payments.length);
    for (const [key, ids] of client.answers) expect({ key, ids: new Set(ids).size }).toEqual({ key, ids: 1 });
    // A fault is a 503 (or no answer from a replica that is gone), never a 500.
    const unexpected = client.attempts.filter((a) => ![0, 200, 409, 503].includes(a.status));
    expect(unexpected.map((a) => `${a.key} answered ${a.status} at ${new Date(a.at).toISOString()}`)).toEqual([]);

    // None lost, none created twice: the store has exactly these, and each event is on PAYMENTS once.
    const paid = payments.filter((p) => p.paid);
    expect(await total(secondGateway, store, '')).toBe(payments.length);
    expect(await total(secondGateway, store, '&status=approved')).toBe(paid.length);
    expect(await storedEvents('created')).toBe(payments.length);
    expect(await storedEvents('status_changed')).toBe(paid.length);

    // The restarted NATS member holds its copy of every stream again: the cluster is back to
    // surviving the loss of any one member (nats-server 2.12.1 deleted them as orphans instead).
    expect(await streamCopies()).toEqual(Object.values(Streams).map((s) => `${s.name}: 3 current`));

    // Every event delivered, each under one webhook-id, signed, created before status_changed.
    for (const payment of payments) {
      const hooks = receiver.events(payment.id);
      const created = hooks.filter((h) => h.json.event === 'payment.created');
      const changed = hooks.filter((h) => h.json.event === 'payment.status_changed');
      expect(new Set(created.map((h) => h.headers['webhook-id'])).size).toBe(1);
      expect(new Set(changed.map((h) => h.headers['webhook-id'])).size).toBe(payment.paid ? 1 : 0);
      if (payment.paid) {
        expect(hooks.indexOf(created[0]!)).toBeLessThan(hooks.indexOf(changed[0]!));
        expect(changed.every((h) => h.json.status === 'approved')).toBe(true);
      }
    }
    expect(badSignatures).toEqual([]);
  }, 600_000);

  /** Waits until every payment's events were delivered (answered 200); a failure says where each missing one stands. */
  async function converged(payments: Created[], store: StoreCredentials): Promise<void> {
    const delivered = (id: string, event: string) =>
      answered.some(({ hook, status }) => status === 200 && hook.json.id === id && hook.json.event === event);
    const deadline = Date.now() + RECOVERY_CAP_MS;
    for (;;) {
      const missing = payments.filter(
        (p) => !delivered(p.id, 'payment.created') || (p.paid && !delivered(p.id, 'payment.status_changed')),
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
    const events = (await read(`/public-api/v1/events?paymentId=${payment.id}`)) as { data?: unknown[] };
    return JSON.stringify({
      payment: await read(`/public-api/v1/payments/${payment.id}`),
      events: events.data ?? events,
      received: answered
        .filter(({ hook }) => hook.json.id === payment.id)
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
    return eventually(read, (copies) => copies.every((c) => c.endsWith(': 3 current')), RECOVERY_CAP_MS, 1000);
  }

  async function storedEvents(type: 'created' | 'status_changed'): Promise<number> {
    const subject = Subjects.paymentEvent(type);
    const info = await (await jetstreamManager(nc)).streams.info(Streams.payments.name, { subjects_filter: subject });
    return info.state.subjects?.[subject] ?? 0;
  }
});

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
  const deadline = Date.now() + RECOVERY_CAP_MS;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (halt.aborted) throw new Error('the test ended first');
    if (Date.now() > deadline) throw new Error(`not recovered within ${RECOVERY_CAP_MS} ms`);
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

function report(recoveries: Recovery[], payments: Created[], loadSeconds: number, client: MerchantClient): void {
  const lines = [
    `chaos: ${payments.length} payments in ${loadSeconds.toFixed(0)} s (${(payments.length / loadSeconds).toFixed(1)} creates/s), ` +
      `${payments.filter((p) => p.paid).length} paid; ${client.attempts.length} requests, ` +
      `${client.attempts.filter((a) => a.status === 503 && !a.key.endsWith(':pay')).length} creates and ` +
      `${client.attempts.filter((a) => a.status === 503 && a.key.endsWith(':pay')).length} pays answered 503, ` +
      `${client.attempts.filter((a) => a.status === 0).length} without an answer`,
    ...recoveries.map(
      (r) =>
        `  ${r.fault.padEnd(60)} first create ok after ${(r.createMs / 1000).toFixed(1)} s, ` +
        `delivery resumed after ${((r.deliveryMs ?? NaN) / 1000).toFixed(1)} s`,
    ),
  ];
  console.log(lines.join('\n'));
}

interface Steady {
  seconds: number;
  creates: number;
  requests: number;
  answered503: number;
  unanswered: number;
  /** From the answer of the request that caused each event (create, pay) to the merchant's 2xx. */
  webhookMs: number[];
}

/** What the merchant saw before the first fault: the answers, and how late the webhooks came. */
function steadyWindow(
  payments: Created[],
  client: MerchantClient,
  answered: { hook: ReceivedWebhook; status: number }[],
  from: number,
  to: number,
): Steady {
  const inWindow = payments.filter((p) => p.firstSentAt >= from && p.firstSentAt < to);
  const attempts = client.attempts.filter((a) => a.sentAt >= from && a.sentAt < to);
  const answeredAt = (key: string) => client.attempts.find((a) => a.key === key && a.status === 200)?.at;
  const delivered = (id: string, event: string) =>
    answered.find(({ hook, status }) => status === 200 && hook.json.id === id && hook.json.event === event)?.hook.at;
  const webhookMs: number[] = [];
  for (const p of inWindow) {
    const causes: [string, string][] = [[p.key, 'payment.created']];
    if (p.paid) causes.push([`${p.key}:pay`, 'payment.status_changed']);
    for (const [key, event] of causes) {
      const cause = answeredAt(key);
      const at = delivered(p.id, event);
      if (cause !== undefined && at !== undefined) webhookMs.push(Math.max(0, at - cause));
    }
  }
  return {
    seconds: (to - from) / 1000,
    creates: inWindow.length,
    requests: attempts.length,
    answered503: attempts.filter((a) => a.status === 503).length,
    unanswered: attempts.filter((a) => a.status === 0).length,
    webhookMs: webhookMs.sort((a, b) => a - b),
  };
}

function reportSteady(steady: Steady): void {
  const quantile = (q: number) =>
    steady.webhookMs[Math.min(steady.webhookMs.length - 1, Math.floor(q * steady.webhookMs.length))];
  console.log(
    `chaos: before any fault, ${steady.seconds.toFixed(0)} s: ${steady.creates} creates, ${steady.requests} requests, ` +
      `${steady.answered503} answered 503, ${steady.unanswered} without an answer; ` +
      `webhook after the answer (${steady.webhookMs.length}): p50 ${quantile(0.5)} ms, p99 ${quantile(0.99)} ms, ` +
      `max ${steady.webhookMs.at(-1)} ms`,
  );
}
