import fs from 'node:fs';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import {
  allRpcs,
  AuthBucket,
  AuthBucketStream,
  Consumers,
  inboxPrefix,
  NATS_IDENTITIES,
  natsPermissions,
  Notices,
  PaymentViewsBucket,
  PaymentViewsBucketStream,
  Streams,
  SandboxRpc,
  Subjects,
  subjectMatches,
  txidFor,
  type ConsumerDefinition,
  type NatsIdentity,
  type StreamDefinition,
} from '@pix/contracts';
import { connectAs, freePort, startNats, stopPid, type StackNats } from '@pix/devstack';
import { callRpc, provisionJetStream, serveRpc } from '@pix/messaging';
import { createLogger } from '@pix/observability';
import { paymentsClient } from '../support/payments';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';
import { jetStreamAdmin } from '../support/streams';

/**
 * No reply-subject injection (docs/decisions/nats-accounts.md): whatever reply subject a request
 * names, the bus (JetStream's API, an RPC server, an acknowledgement) publishes nothing onto a
 * subject the requester may not publish itself. nats-server checks a publisher's permission on the
 * subject alone, never on the reply subject; what stops it is that each identity has an account of
 * its own, into which every answer comes back.
 *
 * The matrix: every identity (its own credentials, as `make up` makes them) × every subject it may
 * publish (wildcards made concrete: its real streams, consumers, keys and pending acknowledgements)
 * × a reply onto every subject a stream captures and every operation's and notice's subject that
 * it may not publish; then no stream it does not write has stored a message, and no operation's
 * server nor notice's subscriber received anything but the requests themselves. The provisioning
 * step is left out: it administers JetStream, and may configure a stream to republish anywhere.
 */

const permissions = natsPermissions();
const mayPublish = (identity: NatsIdentity, subject: string) =>
  permissions[identity].publish.allow.some((allowed) => subjectMatches(allowed, subject));
const streams: StreamDefinition[] = [
  ...(Object.values(Streams) as StreamDefinition[]),
  AuthBucketStream,
  PaymentViewsBucketStream,
];
const consumers = Object.values(Consumers) as ConsumerDefinition[];
const requesters = NATS_IDENTITIES.filter((identity) => identity !== 'provisioner');

const logger = createLogger('reply-subject-matrix', 'silent');
/** The body of every request the matrix sends to an operation or a notice: what its listener may receive. */
const REQUEST = JSON.stringify({ matrix: 'request' });
/** A fact nobody stated, which the matrix writes where it may and makes answers carry. */
const forgedFact = (txid: string) => ({
  endToEndId: `E${Date.now()}forged`,
  txid,
  amountCents: 1200,
  paidAt: new Date().toISOString(),
});
/** A subject of a stream's pattern, the wildcards filled in. */
const concrete = (pattern: string) => pattern.replace('*', 'matrix').replace('>', 'matrix.probe');

/** Every subject a reply could aim at: what the streams capture, the facts by name, the operations and the notices. */
const everyTarget = [
  ...new Set([
    ...streams.flatMap((stream) => stream.subjects.map(concrete)),
    Subjects.pixPaid,
    Subjects.pixRefunded,
    Subjects.paymentEvent('payment.created', true),
    Subjects.paymentEvent('payment.status_changed', false),
    Subjects.paymentDue('expiry'),
    Subjects.paymentSchedule('expiry', 'matrix', 'k'),
    Subjects.paymentCount('matrix-store', 'all'),
    Subjects.pixCommand('refund'),
    Subjects.pixCommandSchedule('refund', 'matrix'),
    Subjects.webhookAttemptDue,
    Subjects.webhookDeadLetter,
    `$KV.${AuthBucket.name}.${AuthBucket.tokenKey('matrix')}`,
    `$KV.${PaymentViewsBucket.name}.test.matrix.probe`,
    ...allRpcs().map((rpc) => rpc.subject),
    ...Object.values(Notices).map((notice) => notice.subject),
  ]),
];

/** One message the matrix sends: a subject the identity may publish, a body its receiver answers, a reply subject. */
interface Request {
  subject: string;
  body: string;
  reply: string;
  /** A counter's increment (the Nats-Incr header). */
  counter: boolean;
}

describe('no reply-subject injection', () => {
  let stack: PrivateStack;
  const open: NatsConnection[] = [];
  async function as(identity: NatsIdentity, on: StackNats = stack): Promise<NatsConnection> {
    const nc = await connectAs(on.natsUrl, identity, on.natsCredentials);
    open.push(nc);
    return nc;
  }
  beforeAll(async () => {
    // Without services: the matrix plays every operation's server and notice's subscriber itself.
    stack = await startPrivateStack({ services: [], mongoUrl: sharedStack().mongoUrl });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await stack?.stop();
  });

  /** Every stream's last sequence, as the provisioning step reads it: it grows with every message stored. */
  async function lastSequences(): Promise<Record<string, number>> {
    const jsm = await jetstreamManager(await as('provisioner'));
    const out: Record<string, number> = {};
    for (const stream of streams) out[stream.name] = (await jsm.streams.info(stream.name)).state.last_seq;
    return out;
  }

  /**
   * Messages on each durable consumer's stream (by its stream's first writer) and, for each
   * reader, pending deliveries whose acknowledgement subjects the matrix then uses; a key in the
   * bucket and a counter to read back.
   */
  async function seed(perConsumer: number): Promise<Map<string, string[]>> {
    for (const consumer of consumers) {
      const writer = streams.find((s) => s.name === consumer.stream)!.writers[0]!;
      const js = jetstream(await as(writer));
      for (let i = 0; i < perConsumer * 4; i++) await js.publish(concrete(consumer.filterSubjects[0]), REQUEST);
    }
    const kv = await new Kvm(await as('gateway')).open(AuthBucket.name);
    await kv.put('matrix.probe', JSON.stringify(forgedFact('matrix')));
    const views = await new Kvm(await as('payments')).open(PaymentViewsBucket.name);
    await views.put('matrix.probe', JSON.stringify(forgedFact('matrix')));
    const increment = headers();
    increment.set('Nats-Incr', '1');
    await jetstream(await as('payments')).publish(concrete(Subjects.paymentCountsAll), undefined, {
      headers: increment,
    });
    const acks = new Map<string, string[]>();
    for (const consumer of consumers) {
      const reader = await as(consumer.reader);
      // A pull's messages come with their stream subjects to the subscription of its reply subject
      // (not to a request's), each with the subject that acknowledges it: $JS.ACK.<stream>.<durable>.…
      const inbox = `${inboxPrefix(consumer.reader)}.matrix.${consumer.durable}`;
      const pulled = reader.subscribe(inbox, { max: perConsumer, timeout: 10_000 });
      reader.publish(
        `$JS.API.CONSUMER.MSG.NEXT.${consumer.stream}.${consumer.durable}`,
        JSON.stringify({ batch: perConsumer, expires: 5e9 }),
        { reply: inbox },
      );
      const subjects: string[] = [];
      for await (const msg of pulled) subjects.push(msg.reply!);
      acks.set(`${consumer.stream}.${consumer.durable}`, subjects);
    }
    return acks;
  }

  /** A subject that stream holds, to read back. */
  function storedSubjectOf(stream: string): string {
    return stream === Streams.paymentCounts.name
      ? concrete(Subjects.paymentCountsAll)
      : stream === AuthBucketStream.name
        ? `$KV.${AuthBucket.name}.matrix.probe`
        : stream === PaymentViewsBucketStream.name
          ? `$KV.${PaymentViewsBucket.name}.matrix.probe`
          : concrete(
              consumers.find((c) => c.stream === stream)?.filterSubjects[0] ??
                streams.find((s) => s.name === stream)!.subjects[0]!,
            );
  }

  /**
   * What an identity sends: each subject it may publish, made concrete, with a body that makes its
   * receiver answer (JetStream's requests; a request body for an operation), once with each reply
   * subject; a pending delivery is acknowledged once, so each reply gets an acknowledgement of its own.
   */
  function requestsOf(identity: NatsIdentity, targets: string[], acks: Map<string, string[]>): Request[] {
    return permissions[identity].publish.allow.flatMap((allowed): Request[] => {
      const each = (subject: string, body: string, counter = false) =>
        targets.map((reply) => ({ subject, body, reply, counter }));
      const ack = /^\$JS\.ACK\.([^.]+)\.([^.]+)\.>$/.exec(allowed);
      if (ack) {
        const pending = acks.get(`${ack[1]}.${ack[2]}`)!;
        return targets.map((reply, i) => ({ subject: pending[i]!, body: '+ACK', reply, counter: false }));
      }
      if (allowed === '$JS.API.INFO') return each(allowed, '');
      const api = /^\$JS\.API\.([A-Z.]+)\.([A-Z_]+)(\.[A-Za-z0-9_-]+)?(\.>)?$/.exec(allowed);
      if (api) {
        const [, operation, stream, , wildcard] = api;
        const stored = storedSubjectOf(stream!);
        if (operation === 'STREAM.INFO' || operation === 'CONSUMER.INFO') return each(allowed, '');
        if (operation === 'STREAM.MSG.GET') return each(allowed, JSON.stringify({ last_by_subj: stored }));
        if (operation === 'DIRECT.GET' && wildcard) return each(`$JS.API.DIRECT.GET.${stream}.${stored}`, '');
        if (operation === 'DIRECT.GET') return each(allowed, JSON.stringify({ seq: 1, batch: 3 }));
        if (operation === 'CONSUMER.MSG.NEXT') return each(allowed, JSON.stringify({ batch: 2, no_wait: true }));
        throw new Error(`the matrix does not know how to ask ${allowed}`);
      }
      // A stream's subject (a counter takes its increment in a header), an operation, a notice.
      return each(concrete(allowed), REQUEST, allowed === Subjects.paymentCountsAll);
    });
  }

  it('every identity × every subject it may publish × a reply onto every subject it may not: nothing stored or received', async () => {
    const targetsOf = (identity: NatsIdentity) => everyTarget.filter((target) => !mayPublish(identity, target));
    const perConsumer = Math.max(...requesters.map((identity) => targetsOf(identity).length)) + 1;
    const acks = await seed(perConsumer);

    // Every operation's server (the services' own serveRpc, answering every request it takes with
    // a forged fact) and every notice's subscriber, as itself, while one identity sends; and a
    // plain subscription beside each, which sees whatever arrives there.
    let requester: NatsIdentity | undefined;
    const crossed: string[] = [];
    const applied: string[] = [];
    let ownAccount = 0;
    const observe = async (listener: NatsIdentity, subject: string) => {
      const nc = await as(listener);
      nc.subscribe(subject, {
        callback: (_, msg) => {
          if (msg.string() === REQUEST) return;
          // An answer the requester asked onto a subject of its own account reaches only its
          // own listeners: the identity talking to itself, which it can do anyway.
          if (listener === requester) ownAccount++;
          else crossed.push(`${requester} → ${listener}: ${subject} ← ${msg.string().slice(0, 80)}`);
        },
      });
      await nc.flush();
      return nc;
    };
    for (const rpc of allRpcs()) {
      const server = await observe(rpc.server, rpc.subject);
      serveRpc(
        server,
        rpc,
        async (_, msg) => {
          if (msg.string() !== REQUEST) applied.push(`${requester} → ${rpc.server}: ${rpc.subject}`);
          return forgedFact('answer') as never;
        },
        { queue: 'matrix', logger },
      );
      await server.flush();
    }
    for (const notice of Object.values(Notices)) {
      for (const subscriber of notice.subscribers) await observe(subscriber, notice.subject);
    }

    let size = 0;
    const grown: string[] = [];
    for (const identity of requesters) {
      requester = identity;
      const nc = await as(identity);
      const before = await lastSequences();
      const increment = headers();
      increment.set('Nats-Incr', '1');
      for (const request of requestsOf(identity, targetsOf(identity), acks)) {
        nc.publish(request.subject, request.body, {
          reply: request.reply,
          ...(request.counter && { headers: increment }),
        });
        size++;
      }
      await nc.flush();
      // The answers are on their way back by now; give the slowest (a batch) a moment.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const after = await lastSequences();
      for (const stream of streams) {
        if (!stream.writers.includes(identity) && after[stream.name] !== before[stream.name]) {
          grown.push(`${identity}: ${stream.name} ${before[stream.name]} → ${after[stream.name]}`);
        }
      }
    }
    process.stdout.write(
      `reply-subject matrix: ${requesters.length} identities, ${size} requests (subject × reply), ` +
        `${everyTarget.length} reply subjects; ${ownAccount} answers landed in the requester's own account\n`,
    );
    expect(size).toBeGreaterThan(1000);
    expect(grown).toEqual([]);
    expect(crossed).toEqual([]);
    expect(applied).toEqual([]);
  }, 120_000);

  it("the issue's attack: the gateway's bucket entry, direct-got onto pix.events.paid, approves nothing", async () => {
    const shared = sharedStack();
    const client = await paymentsClient({ ...shared, gatewayUrl: shared.gatewayUrl });
    const payment = await client.create(12);
    const fact = { ...forgedFact(txidFor(payment.id)), amountCents: 1200 };
    const gateway = await as('gateway', shared);
    const key = `probe.${payment.id}`;
    await (await new Kvm(gateway).open(AuthBucket.name)).put(key, JSON.stringify(fact));
    const admin = await jetStreamAdmin(shared);
    open.push(admin);
    const jsm = await jetstreamManager(admin);
    const before = (await jsm.streams.info(Streams.pix.name)).state.last_seq;

    gateway.publish(`$JS.API.DIRECT.GET.${AuthBucketStream.name}.$KV.${AuthBucket.name}.${key}`, '', {
      reply: Subjects.pixPaid,
    });
    await gateway.flush();
    await new Promise((resolve) => setTimeout(resolve, 3000));

    expect((await client.get(payment.id)).status).toBe('pending');
    const after = (await jsm.streams.info(Streams.pix.name)).state.last_seq;
    for (let seq = before + 1; seq <= after; seq++) {
      const stored = await jsm.streams.getMessage(Streams.pix.name, { seq }).catch(() => null);
      expect(stored?.string() ?? '').not.toContain(fact.endToEndId);
    }
    // The control: the same payment, paid through the PSP (the sandbox), is approved.
    await callRpc(await as('admin', shared), SandboxRpc.pay, { paymentId: payment.id });
    expect((await client.waitForStatus(payment.id, 'approved')).status).toBe('approved');
  }, 60_000);

  it('on a NATS without accounts (compose), the same request stores the forged fact: the measure sees it', async () => {
    const dir = fs.mkdtempSync(path.join(stack.dir, 'open-nats-'));
    const port = await freePort();
    const server = await startNats(dir, port, false, { open: true });
    const nc = await connect({ servers: `nats://127.0.0.1:${port}` });
    try {
      await provisionJetStream(nc);
      const jsm = await jetstreamManager(nc);
      await (await new Kvm(nc).open(AuthBucket.name)).put('probe.open', JSON.stringify(forgedFact('open')));
      const before = (await jsm.streams.info(Streams.pix.name)).state.last_seq;
      nc.publish(`$JS.API.DIRECT.GET.${AuthBucketStream.name}.$KV.${AuthBucket.name}.probe.open`, '', {
        reply: Subjects.pixPaid,
      });
      await nc.flush();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await jsm.streams.info(Streams.pix.name)).state.last_seq).toBe(before + 1);
    } finally {
      await nc.close();
      await stopPid(server.pid);
    }
  });
});
