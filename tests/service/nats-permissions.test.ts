import fs from 'node:fs';
import path from 'node:path';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { createUser } from '@nats-io/nkeys';
import { connect, PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import {
  AuthBucket,
  Consumers,
  DomainError,
  GatewayRpc,
  PaymentsRpc,
  PaymentViewsBucket,
  Streams,
  Subjects,
  type NatsIdentity,
} from '@pix/contracts';
import { connectAs, type StackNats } from '@pix/devstack';
import { callRpc, connectNats, CounterReader, publishEvent } from '@pix/messaging';
import { createRegistry } from '@pix/observability';
import { capturedLog } from '../support/captured-log';
import { eventually } from '../support/api';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * NATS holds every identity to the permissions table of @pix/contracts: on the real nats-server,
 * with the credentials `make up` and the tests' stacks generate, what each may do succeeds and a
 * sample of what it may not is refused with a permissions violation.
 */
const stack = sharedStack();
const open: NatsConnection[] = [];
async function as(identity: NatsIdentity, on: StackNats = stack): Promise<NatsConnection> {
  const nc = await connectAs(on.natsUrl, identity, on.natsCredentials);
  open.push(nc);
  return nc;
}
afterAll(() => Promise.all(open.map((nc) => nc.close())));

/** What a refused operation rejects with: NATS's permissions violation for that subject. */
async function refused(operation: Promise<unknown>, subject: string): Promise<void> {
  const err = await operation.then(
    () => new Error(`allowed: ${subject}`),
    (e: unknown) => e,
  );
  const violation = err instanceof PermissionViolationError ? err : (err as Error).cause;
  expect(violation).toBeInstanceOf(PermissionViolationError);
  expect((violation as PermissionViolationError).subject).toBe(subject);
}

/** A fact as the adapter publishes it, for a charge nobody has. */
const strayFact = () => ({ txid: `probe${Date.now()}`, endToEndId: `E${Date.now()}`, amountCents: 100 });

describe('who connects', () => {
  it('refuses an anonymous client', async () => {
    await expect(connect({ servers: stack.natsUrl, timeout: 5000 })).rejects.toThrow('Authorization Violation');
  });

  it('refuses a key the configuration does not list', async () => {
    const dir = fs.mkdtempSync(path.join(stack.dir, 'stranger-'));
    const seedFile = path.join(dir, 'stranger.nk');
    fs.writeFileSync(seedFile, new TextDecoder().decode(createUser().getSeed()));
    const stranger = { ...stack.natsCredentials!, admin: seedFile };
    await expect(connectAs(stack.natsUrl, 'admin', stranger, { timeout: 5000 })).rejects.toThrow(
      'Authorization Violation',
    );
  });
});

describe('what each identity may do, it does', () => {
  it('admin creates a store; the dispatcher reads its webhook secrets; the gateway reads payments', async () => {
    const store = await callRpc(await as('admin'), GatewayRpc.storesCreate, { name: 'Permissions store' });
    const { secrets } = await callRpc(await as('webhook-dispatcher'), GatewayRpc.webhookSecrets, {
      storeId: store.storeId,
    });
    expect(secrets).toEqual([store.webhookSecret]);
    const missing = callRpc(await as('gateway'), PaymentsRpc.get, { storeId: store.storeId, id: 'none' });
    await expect(missing).rejects.toBeInstanceOf(DomainError);
  });

  it("the gateway receives PAYMENTS' feed and uses its AUTH bucket; payments reads its counters", async () => {
    const gateway = await as('gateway');
    const feed = gateway.subscribe(Subjects.paymentEventsFeedAll, { max: 1 });
    await gateway.flush();
    await jetstream(await as('payments')).publish(Subjects.paymentEvent('payment.created', true), '{"probe":"feed"}');
    for await (const msg of feed) {
      expect([msg.subject, msg.string()]).toEqual(['feeds.payments.events.hook.created', '{"probe":"feed"}']);
      expect(msg.headers?.get('Nats-Stream')).toBe(Streams.payments.name);
    }
    const kv = await new Kvm(gateway).open(AuthBucket.name);
    await kv.put('probe.permissions', '{}');
    expect((await kv.get('probe.permissions'))?.string()).toBe('{}');

    const counts = new CounterReader(await as('payments'), Streams.paymentCounts);
    expect(await counts.read(Subjects.paymentCount('no-such-store', 'all'))).toBe(0);
  });

  it("payments writes the read model's views; the gateway reads them", async () => {
    const key = `test.permissions-store.${Date.now()}`;
    await (await new Kvm(await as('payments')).open(PaymentViewsBucket.name)).put(key, '{"probe":"view"}');
    const views = await new Kvm(await as('gateway')).open(PaymentViewsBucket.name);
    expect((await views.get(key))?.string()).toBe('{"probe":"view"}');
  });

  it('the provisioning step reads and manages JetStream', async () => {
    const jsm = await jetstreamManager(await as('provisioner'));
    expect((await jsm.streams.info(Streams.pix.name)).config.subjects).toEqual([Subjects.pixEventsAll]);
  });
});

describe('what it may not do, NATS refuses', () => {
  it.each(['webhook-dispatcher', 'gateway'] as const)('%s cannot publish pix.events.paid', async (identity) => {
    const js = jetstream(await as(identity));
    await refused(js.publish(Subjects.pixPaid, JSON.stringify(strayFact())), Subjects.pixPaid);
  });

  it("the gateway cannot write the read model's views; the dispatcher and the adapter cannot read them", async () => {
    const subject = `$KV.${PaymentViewsBucket.name}.test.forged-store.forged`;
    await refused(jetstream(await as('gateway')).publish(subject, '{"rev":99}'), subject);
    const read = `$JS.API.STREAM.MSG.GET.KV_${PaymentViewsBucket.name}`;
    for (const identity of ['webhook-dispatcher', 'pix-provider-adapter'] as const) {
      const jsm = await jetstreamManager(await as(identity), { checkAPI: false });
      await refused(jsm.streams.getMessage(`KV_${PaymentViewsBucket.name}`, { last_by_subj: subject }), read);
    }
  });

  it('the adapter cannot call admin.stores.create', async () => {
    const adapter = await as('pix-provider-adapter');
    await refused(callRpc(adapter, GatewayRpc.storesCreate, { name: 'forged' }), GatewayRpc.storesCreate.subject);
  });

  it.each(['gateway', 'payments', 'pix-provider-adapter', 'admin'] as const)(
    '%s cannot ask for webhook secrets',
    async (identity) => {
      const nc = await as(identity);
      await refused(callRpc(nc, GatewayRpc.webhookSecrets, { storeId: 'any' }), GatewayRpc.webhookSecrets.subject);
    },
  );

  it("the dispatcher cannot bind payments' consumer, nor pull from it", async () => {
    const dispatcher = await as('webhook-dispatcher');
    const { stream, durable } = Consumers.paymentsPix;
    await refused(jetstream(dispatcher).consumers.get(stream, durable), `$JS.API.CONSUMER.INFO.${stream}.${durable}`);
    const next = `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`;
    await refused(dispatcher.request(next, JSON.stringify({ batch: 1 }), { timeout: 2000 }), next);
  });

  it("the gateway cannot take the dispatcher's consumer on PAYMENTS", async () => {
    const gateway = await as('gateway');
    const { stream, durable } = Consumers.dispatcherPayments;
    const next = `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`;
    await refused(gateway.request(next, JSON.stringify({ batch: 1 }), { timeout: 2000 }), next);
  });

  it.each(['gateway', 'payments', 'pix-provider-adapter', 'webhook-dispatcher'] as const)(
    '%s creates no consumer: a push consumer could deliver onto any subject inside JetStream',
    async (identity) => {
      const stream = identity === 'gateway' ? `KV_${AuthBucket.name}` : Streams.payments.name;
      const filter = identity === 'gateway' ? `$KV.${AuthBucket.name}.>` : Subjects.paymentEventsAll;
      const jsm = await jetstreamManager(await as(identity));
      const config = {
        name: 'redirect',
        filter_subject: filter,
        deliver_subject: PaymentsRpc.transition.subject,
        ack_policy: AckPolicy.None,
      };
      await refused(jsm.consumers.add(stream, config), `$JS.API.CONSUMER.CREATE.${stream}.redirect.${filter}`);
    },
  );

  it('no service creates or changes a stream', async () => {
    for (const identity of ['payments', 'webhook-dispatcher'] as const) {
      const nc = await as(identity);
      const jsm = await jetstreamManager(nc);
      await refused(jsm.streams.add({ name: 'FORGED', subjects: ['forged.>'] }), '$JS.API.STREAM.CREATE.FORGED');
      const update = `$JS.API.STREAM.UPDATE.${Streams.payments.name}`;
      const config = {
        name: Streams.payments.name,
        subjects: [Subjects.paymentEventsAll],
        republish: { src: '>', dest: Subjects.pixPaid },
      };
      await refused(nc.request(update, JSON.stringify(config), { timeout: 2000 }), update);
    }
  });

  it("nobody subscribes to another's replies", async () => {
    const gateway = await as('gateway');
    const subscription = gateway.subscribe('_INBOX.payments.>');
    const ended = (async () => {
      for await (const _ of subscription) return new Error('received another identity’s reply');
    })().catch((err: unknown) => err);
    expect(await ended).toBeInstanceOf(PermissionViolationError);
  });
});

describe('a refusal fails loudly in the caller', () => {
  it('is logged as an error and counted in nats_permission_violations_total', async () => {
    const { logger, lines } = capturedLog('info');
    const registry = createRegistry('webhook-dispatcher');
    const nc = await connectNats(stack.natsUrl, 'webhook-dispatcher', logger, {
      seedFile: stack.natsCredentials!['webhook-dispatcher'],
    });
    open.push(nc);
    nc.publish(Subjects.pixPaid, JSON.stringify(strayFact()));
    await nc.flush();
    const logged = await eventually(
      async () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
      (entries) => entries.some((e) => e.nats === 'permissions violation'),
    );
    expect(logged.find((e) => e.nats === 'permissions violation')).toMatchObject({
      level: 50,
      operation: 'publish',
      subject: Subjects.pixPaid,
      msg: 'NATS refused an operation',
    });
    expect(await registry.getSingleMetricAsString('nats_permission_violations_total')).toMatch(
      /nats_permission_violations_total\{operation="publish",subject="pix\.events\.paid"[^}]*\} 1/,
    );
  });
});

describe('scheduled messages fire with permissions on', () => {
  // A stack of its own without services: the test takes the consumers' messages itself.
  let own: PrivateStack;
  beforeAll(async () => {
    own = await startPrivateStack({ services: [], mongoUrl: stack.mongoUrl });
  });
  afterAll(() => own?.stop());

  async function firedOn(js: JetStreamClient, consumer: (typeof Consumers)[keyof typeof Consumers]) {
    const bound = await js.consumers.get(consumer.stream, consumer.durable);
    const messages = await bound.fetch({ max_messages: 1, expires: 10_000 });
    for await (const msg of messages) {
      msg.ack();
      return { subject: msg.subject, body: msg.json<Record<string, unknown>>() };
    }
    return undefined;
  }

  it("payments' deadline fires onto payments.due, where its consumer takes it", async () => {
    const js = jetstream(await as('payments', own));
    const at = new Date(Date.now() + 500);
    await publishEvent(js, Subjects.paymentSchedule('expiry', 'p1', 'k1'), { paymentId: 'p1' }, 'schedule-p1', {
      schedule: { at, target: Subjects.paymentDue('expiry') },
    });
    expect(await firedOn(js, Consumers.paymentsDue)).toEqual({
      subject: Subjects.paymentDue('expiry'),
      body: { paymentId: 'p1' },
    });
  });

  it("the dispatcher's retry fires onto webhooks.attempts.due, where its consumer takes it", async () => {
    const js = jetstream(await as('webhook-dispatcher', own));
    await js.publish(Subjects.webhookAttemptScheduled('p2', 1), JSON.stringify({ eventId: 'e2' }), {
      schedule: { specification: new Date(Date.now() + 500), target: Subjects.webhookAttemptDue },
    });
    expect(await firedOn(js, Consumers.dispatcherAttempts)).toEqual({
      subject: Subjects.webhookAttemptDue,
      body: { eventId: 'e2' },
    });
  });

  it('nobody else may schedule there, and a schedule cannot aim outside its stream', async () => {
    const gateway = jetstream(await as('gateway', own));
    const schedule = Subjects.paymentSchedule('expiry', 'p3', 'k3');
    await refused(
      gateway.publish(schedule, '{}', {
        schedule: { specification: new Date(), target: Subjects.paymentDue('expiry') },
      }),
      schedule,
    );
    const payments = jetstream(await as('payments', own));
    const aimed = payments.publish(Subjects.paymentSchedule('expiry', 'p4', 'k4'), '{}', {
      schedule: { specification: new Date(), target: Subjects.pixPaid },
    });
    await expect(aimed).rejects.toThrow(/target is invalid/);
  });
});
