import * as contracts from './index';
import { natsAuthorization } from './nats-authorization';
import {
  accountOf,
  allRpcs,
  AuthBucketStream,
  JETSTREAM_ACCOUNT,
  natsAccounts,
  natsPermissions,
  PaymentViewsBucketStream,
} from './permissions';
import { PaymentViewsBucket } from './payment-views';
import type { NatsIdentity } from './identities';
import type { RpcDefinition } from './rpc/define-rpc';
import { Streams, type StreamDefinition } from './streams';
import { Notices } from './notices';
import { subjectMatches, Subjects } from './subjects';

/** A subject of a pattern, its wildcards filled in. */
const concrete = (pattern: string) => pattern.replace(/\*/g, 'x').replace('>', 'x.y');

const table = natsPermissions();
const mayPublish = (identity: NatsIdentity, subject: string) =>
  table[identity].publish.allow.some((allowed) => subjectMatches(allowed, subject));
const maySubscribe = (identity: NatsIdentity, subject: string) =>
  table[identity].subscribe.allow.some((allowed) => subjectMatches(allowed, subject));
const everyone = contracts.NATS_IDENTITIES;
const others = (...allowed: NatsIdentity[]) => everyone.filter((identity) => !allowed.includes(identity));

function isRpcDefinition(value: unknown): value is RpcDefinition {
  return typeof value === 'object' && value !== null && 'subject' in value && 'request' in value && 'server' in value;
}

describe('a new subject cannot be forgotten', () => {
  it('every RPC definition the contracts export is in the table (RPC_GROUPS)', () => {
    const exported = (Object.values(contracts) as unknown[])
      .filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null)
      .flatMap((group) => Object.values(group).filter(isRpcDefinition));
    expect(exported.length).toBeGreaterThan(0);
    const listed = new Set(allRpcs());
    expect(exported.filter((rpc) => !listed.has(rpc)).map((rpc) => rpc.subject)).toEqual([]);
  });

  it('every subject is on a stream or a notice, each of which names who uses it', () => {
    const samples = Object.values(Subjects).map((subject) =>
      typeof subject === 'function' ? (subject as (...args: string[]) => string)('a', 'b', 'c') : subject,
    );
    const homes = [
      ...(Object.values(Streams) as StreamDefinition[]).flatMap((s) => s.subjects),
      ...Object.values(Notices).map((n) => n.subject),
      ...[...(Object.values(Streams) as StreamDefinition[]), AuthBucketStream].flatMap((s) => s.feed?.subject ?? []),
    ];
    expect(samples.filter((subject) => !homes.some((home) => subjectMatches(home, subject)))).toEqual([]);
  });

  it('every RPC is served by one identity and called by at least one other', () => {
    for (const rpc of allRpcs()) {
      expect(rpc.callers.length).toBeGreaterThan(0);
      expect(rpc.callers).not.toContain(rpc.server);
      expect(maySubscribe(rpc.server, rpc.subject)).toBe(true);
      expect(table[rpc.server].allowResponses).toBe(true);
      for (const identity of everyone) expect(mayPublish(identity, rpc.subject)).toBe(rpc.callers.includes(identity));
    }
  });

  it('two operations never share a subject', () => {
    const subjects = allRpcs().map((rpc) => rpc.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
  });
});

describe('who may do what', () => {
  it('only the adapter publishes the PSP facts; the dispatcher publishes nothing under pix.', () => {
    for (const subject of [Subjects.pixPaid, Subjects.pixReview, Subjects.pixCleared, Subjects.pixRejected]) {
      expect(everyone.filter((identity) => mayPublish(identity, subject))).toEqual(['pix-provider-adapter']);
    }
    expect(table['webhook-dispatcher'].publish.allow.filter((s) => s.startsWith('pix.'))).toEqual([]);
  });

  it('payments alone publishes payment events, of payments with a webhookUrl or without', () => {
    for (const webhook of [true, false]) {
      const subject = Subjects.paymentEvent('payment.status_changed', webhook);
      expect(everyone.filter((identity) => mayPublish(identity, subject))).toEqual(['payments']);
    }
  });

  it('the dispatcher calls no payments operation and no operator operation', () => {
    const allowed = table['webhook-dispatcher'].publish.allow;
    expect(
      allowed.filter((s) => s.startsWith('payments.') || s.startsWith('admin.') || s.startsWith('sandbox.')),
    ).toEqual([]);
  });

  it('only admin calls operator operations (admin.*, payments.admin.*)', () => {
    const operator = allRpcs().filter((rpc) => /^(payments\.)?admin\./.test(rpc.subject));
    expect(operator.length).toBeGreaterThan(0);
    for (const rpc of operator) {
      expect(others('admin').filter((identity) => mayPublish(identity, rpc.subject))).toEqual([]);
    }
  });

  it('only the dispatcher may ask for webhook secrets', () => {
    const subject = contracts.GatewayRpc.webhookSecrets.subject;
    expect(everyone.filter((identity) => mayPublish(identity, subject))).toEqual(['webhook-dispatcher']);
  });

  it('a durable consumer is bound and acked by its reader alone, who alone hears of its new leader', () => {
    for (const consumer of Object.values(contracts.Consumers)) {
      const next = `$JS.API.CONSUMER.MSG.NEXT.${consumer.stream}.${consumer.durable}`;
      const ack = `$JS.ACK.${consumer.stream}.${consumer.durable}.1.2.3.4.5`;
      const create = `$JS.API.CONSUMER.CREATE.${consumer.stream}.${consumer.durable}.${consumer.filterSubjects[0]}`;
      const elected = `$JS.EVENT.ADVISORY.CONSUMER.LEADER_ELECTED.${consumer.stream}.${consumer.durable}`;
      for (const identity of others(consumer.reader, 'provisioner')) {
        expect([
          identity,
          mayPublish(identity, next),
          mayPublish(identity, ack),
          mayPublish(identity, create),
          maySubscribe(identity, elected),
        ]).toEqual([identity, false, false, false, false]);
      }
      expect(mayPublish(consumer.reader, next) && mayPublish(consumer.reader, ack)).toBe(true);
      expect(maySubscribe(consumer.reader, elected)).toBe(true);
      expect(mayPublish(consumer.reader, elected)).toBe(false);
      // Its configuration is the provisioning step's: the reader binds, it does not create.
      expect(mayPublish(consumer.reader, create)).toBe(false);
    }
  });

  it('no service creates, changes or deletes a consumer (a push consumer delivers inside JETSTREAM)', () => {
    for (const identity of others('provisioner')) {
      for (const operation of ['CREATE', 'DURABLE.CREATE', 'DELETE']) {
        const allowed = table[identity].publish.allow.filter((s) => s.startsWith(`$JS.API.CONSUMER.${operation}.`));
        expect([identity, operation, allowed]).toEqual([identity, operation, []]);
      }
      expect(mayPublish(identity, '$JS.API.CONSUMER.CREATE.PAYMENTS.feed.payments.events.>')).toBe(false);
    }
  });

  it('a feed is received by its subscribers alone, and no stream captures it (a republish would loop)', () => {
    const fed = [...(Object.values(Streams) as StreamDefinition[]), AuthBucketStream].filter((s) => s.feed);
    expect(fed.map((s) => s.name).sort()).toEqual(['KV_AUTH', 'PAYMENTS']);
    for (const stream of fed) {
      // The republish maps the stream's one subject onto the feed's, token for token after the prefix.
      expect(stream.subjects).toHaveLength(1);
      expect([stream.subjects[0]!.endsWith('.>'), stream.feed!.subject.endsWith('.>')]).toEqual([true, true]);
      for (const identity of everyone) {
        const subscribers: readonly NatsIdentity[] = stream.feed!.subscribers;
        expect(maySubscribe(identity, stream.feed!.subject)).toBe(subscribers.includes(identity));
      }
      const capturing = [...(Object.values(Streams) as StreamDefinition[]), AuthBucketStream].filter((s) =>
        s.subjects.some(
          (subject) =>
            subjectMatches(subject, concrete(stream.feed!.subject)) ||
            subjectMatches(stream.feed!.subject, concrete(subject)),
        ),
      );
      expect(capturing).toEqual([]);
    }
  });

  it('a stream that takes schedules is written by identities that may publish every subject of it', () => {
    // The server checks only that a schedule's target is a subject of its stream: whoever may
    // publish a schedule there must be allowed its target too.
    for (const stream of Object.values(Streams) as StreamDefinition[]) {
      if (!stream.schedules) continue;
      for (const identity of everyone) {
        const publishes = stream.subjects.map((subject) => mayPublish(identity, subject.replace('>', 'x')));
        expect([identity, stream.name, new Set(publishes).size]).toEqual([identity, stream.name, 1]);
      }
    }
  });

  it("only payments writes the payments' read model; the gateway and payments alone read it", () => {
    const view = `$KV.${PaymentViewsBucket.name}.test.store.payment`;
    expect(everyone.filter((identity) => mayPublish(identity, view))).toEqual(['payments']);
    const read = `$JS.API.STREAM.MSG.GET.${PaymentViewsBucketStream.name}`;
    const direct = `$JS.API.DIRECT.GET.${PaymentViewsBucketStream.name}.${view}`;
    for (const subject of [read, direct]) {
      // The provisioning step administers JetStream: all of its API.
      expect(everyone.filter((identity) => mayPublish(identity, subject))).toEqual([
        'gateway',
        'payments',
        'provisioner',
      ]);
    }
    // Nobody may remove views or change the bucket but the provisioning step.
    for (const identity of others('provisioner')) {
      expect(mayPublish(identity, `$JS.API.STREAM.PURGE.${PaymentViewsBucketStream.name}`)).toBe(false);
      expect(mayPublish(identity, `$JS.API.STREAM.UPDATE.${PaymentViewsBucketStream.name}`)).toBe(false);
    }
  });

  it('no service may create or change a stream; the provisioning step may', () => {
    for (const identity of others('provisioner')) {
      expect(mayPublish(identity, '$JS.API.STREAM.CREATE.PIX')).toBe(false);
      expect(mayPublish(identity, `$JS.API.STREAM.UPDATE.${AuthBucketStream.name}`)).toBe(false);
    }
    expect(mayPublish('provisioner', '$JS.API.STREAM.UPDATE.PIX')).toBe(true);
    // …and nothing but JetStream's API.
    expect(mayPublish('provisioner', Subjects.pixPaid)).toBe(false);
  });

  it('each identity subscribes to its own replies only', () => {
    for (const identity of everyone) {
      expect(maySubscribe(identity, `_INBOX.${identity}.x`)).toBe(true);
      for (const other of others(identity)) expect(maySubscribe(identity, `_INBOX.${other}.x`)).toBe(false);
      expect(maySubscribe(identity, '_INBOX.>')).toBe(false);
    }
  });

  it('no identity is left without permissions (an empty allow list would allow everything)', () => {
    for (const identity of everyone) {
      expect(table[identity].publish.allow.length).toBeGreaterThan(0);
      expect(table[identity].subscribe.allow.length).toBeGreaterThan(0);
    }
  });
});

describe('natsAccounts: every answer comes back to the account that asked', () => {
  const accounts = natsAccounts();
  const accountNamed = (name: string) => accounts.find((account) => account.name === name)!;
  const services = (identity: NatsIdentity) =>
    accountNamed(accountOf(identity)).imports.filter((entry) => entry.kind === 'service');

  it('JetStream in one account with the provisioning step alone; every other identity in an account of its own', () => {
    expect(accounts.filter((account) => account.jetstream).map((a) => [a.name, a.identities])).toEqual([
      [JETSTREAM_ACCOUNT, ['provisioner']],
    ]);
    for (const identity of others('provisioner')) {
      expect(accountNamed(accountOf(identity)).identities).toEqual([identity]);
    }
    expect(accountNamed(JETSTREAM_ACCOUNT).imports).toEqual([]);
  });

  it('an account imports exactly what its identity may publish elsewhere (services) or receive from elsewhere (streams)', () => {
    for (const identity of others('provisioner')) {
      const notices: string[] = Object.values(Notices)
        .filter((notice) => (notice.publishers as readonly NatsIdentity[]).includes(identity))
        .map((notice) => notice.subject);
      // What it publishes in its own account is a notice only, which its subscribers import.
      expect([
        identity,
        services(identity)
          .map((entry) => entry.subject)
          .sort(),
      ]).toEqual([identity, table[identity].publish.allow.filter((subject) => !notices.includes(subject))]);
      for (const entry of accountNamed(accountOf(identity)).imports.filter((e) => e.kind === 'stream')) {
        expect(maySubscribe(identity, entry.subject)).toBe(true);
      }
    }
  });

  it('every import has its export, to exactly the accounts that import it', () => {
    for (const account of accounts) {
      for (const entry of account.imports) {
        const offered = accountNamed(entry.account).exports.filter(
          (e) => e.kind === entry.kind && e.subject === entry.subject,
        );
        expect(offered).toHaveLength(1);
        expect(offered[0]!.accounts).toContain(account.name);
      }
      for (const offer of account.exports) {
        const importers = accounts.filter((other) =>
          other.imports.some((e) => e.account === account.name && e.kind === offer.kind && e.subject === offer.subject),
        );
        expect(importers.map((other) => other.name).sort()).toEqual(offer.accounts);
      }
    }
  });

  it("an account's imports never overlap (a message would cross twice)", () => {
    for (const account of accounts) {
      const subjects = account.imports.filter((e) => e.kind === 'service').map((e) => e.subject);
      for (const a of subjects) {
        const overlapping = subjects.filter(
          (b) => b !== a && (subjectMatches(a, concrete(b)) || subjectMatches(b, concrete(a))),
        );
        expect([account.name, a, overlapping]).toEqual([account.name, a, []]);
      }
    }
  });

  it("answers of several messages are streamed back: a pull's batch, a batched direct get; no other", () => {
    const streamed = accountNamed(JETSTREAM_ACCOUNT)
      .exports.filter((e) => e.streamedAnswers)
      .map((e) => e.subject);
    expect(streamed.length).toBeGreaterThan(0);
    for (const subject of streamed)
      expect(subject).toMatch(/^\$JS\.API\.(CONSUMER\.MSG\.NEXT\.[^.]+\.[^.]+|DIRECT\.GET\.[^.]+)$/);
    for (const consumer of Object.values(contracts.Consumers)) {
      expect(streamed).toContain(`$JS.API.CONSUMER.MSG.NEXT.${consumer.stream}.${consumer.durable}`);
    }
  });
});

describe('natsAuthorization', () => {
  const key = (letter: string) => `U${letter.repeat(55)}`;
  const keys = Object.fromEntries(everyone.map((identity, i) => [identity, [key('ABCDEFG'[i]!)]])) as Record<
    NatsIdentity,
    string[]
  >;

  it('makes one nkey user per key, each with its identity permissions, and no anonymous user', () => {
    const conf = natsAuthorization({ ...keys, gateway: [key('Z'), key('Y')] });
    expect(conf).toContain(`{ nkey: ${key('Z')}, permissions: $PERMISSIONS_GATEWAY }`);
    expect(conf).toContain(`{ nkey: ${key('Y')}, permissions: $PERMISSIONS_GATEWAY }`);
    expect(conf).toContain(`{ nkey: ${key('B')}, permissions: $PERMISSIONS_PAYMENTS }`);
    expect(conf).toMatch(/^ {2}PAYMENTS \{\n {4}jetstream: disabled\n/m);
    expect(conf).toMatch(/^ {2}JETSTREAM \{\n {4}jetstream: enabled\n/m);
    expect(conf).toContain(
      '{ service: { account: JETSTREAM, subject: "$JS.API.CONSUMER.MSG.NEXT.PIX.payments-pix" } }',
    );
    expect(conf).toContain(
      '{ service: "$JS.API.CONSUMER.MSG.NEXT.PIX.payments-pix", accounts: [PAYMENTS], response_type: stream }',
    );
    expect(conf).toContain('{ stream: "feeds.payments.events.>", accounts: [GATEWAY] }');
    expect(conf).not.toMatch(/no_auth_user|password|^authorization/m);
  });

  it('refuses an identity without a key, and a seed given for a public key', () => {
    expect(() => natsAuthorization({ ...keys, admin: [] })).toThrow('no NATS public key for admin');
    expect(() => natsAuthorization({ ...keys, admin: [`SU${'A'.repeat(56)}`] })).toThrow('not an nkey user public key');
  });
});
