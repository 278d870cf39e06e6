import { AuthBucket } from './auth';
import { inboxPrefix, NATS_IDENTITIES, type NatsIdentity } from './identities';
import { Notices, type NoticeDefinition } from './notices';
import { PaymentViewsBucket } from './payment-views';
import { AdapterRpc } from './rpc/adapter';
import type { RpcDefinition } from './rpc/define-rpc';
import { DispatcherRpc } from './rpc/dispatcher';
import { GatewayRpc } from './rpc/gateway';
import { PaymentsRpc } from './rpc/payments';
import { SandboxRpc } from './rpc/sandbox';
import { Consumers, leaderElectedAdvisory, Streams, type ConsumerDefinition, type StreamDefinition } from './streams';
import { Subjects } from './subjects';

/**
 * Who may publish and subscribe to what on NATS, for each identity, and which NATS account holds
 * it: nothing here is written by hand, every line follows from a definition that names its users
 * (an RPC its server and callers, a stream its writers, feed subscribers and lookups, a durable
 * consumer its reader, a notice its publishers and subscribers, a bucket its writers and readers).
 * nats-authorization.ts renders it as the server's configuration, for `make up` and for Kubernetes
 * alike (docs/decisions/nats-accounts.md).
 *
 * Each service identity has an account of its own; JetStream (every stream, bucket and consumer)
 * lives in the JETSTREAM account with the provisioning step. An identity reaches another account
 * only through what it imports, which is exactly what it may publish (a service import) or receive
 * (a stream import). A service import rewrites the reply subject, so an answer (JetStream's, an
 * RPC server's) comes back into the requester's own account on the reply subject it named, where
 * only its own imports can carry it further: whatever reply subject a request names, the bus
 * publishes nothing the requester could not publish itself.
 */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** May answer the requests it receives (once each, on the reply subject the request names). */
  allowResponses: boolean;
}

/**
 * A subject of another account made visible in this one. `service`: what the importer publishes
 * there goes to the exporting account (a request's reply subject rewritten to come back here);
 * `stream`: what is published there is delivered here too.
 */
export interface NatsImport {
  kind: 'service' | 'stream';
  subject: string;
  /** The exporting account. */
  account: string;
  /** A service that answers one request with several messages (a pull's batch, a batched direct get). */
  streamedAnswers?: boolean;
}

/** The other side of the imports: a subject an account lets the listed accounts import. */
export interface NatsExport {
  kind: NatsImport['kind'];
  subject: string;
  accounts: string[];
  streamedAnswers?: boolean;
}

/** One NATS account: the identities whose keys log into it, and what crosses its border. */
export interface NatsAccount {
  name: string;
  identities: NatsIdentity[];
  jetstream: boolean;
  imports: NatsImport[];
  exports: NatsExport[];
}

/** Every group of request/reply operations. A new group is listed here; permissions.test.ts fails until it is. */
export const RPC_GROUPS = { PaymentsRpc, AdapterRpc, SandboxRpc, GatewayRpc, DispatcherRpc } as const;

/** Every RPC definition of the groups above. */
export function allRpcs(): RpcDefinition[] {
  return Object.values(RPC_GROUPS).flatMap((group) => Object.values(group) as RpcDefinition[]);
}

/**
 * A key-value bucket is a stream that NATS names after it. Its changes reach the gateway's
 * replicas through its feed; a replica reads the bucket's current state with batched direct gets.
 */
export const AuthBucketStream = {
  name: `KV_${AuthBucket.name}`,
  subjects: [`$KV.${AuthBucket.name}.>`],
  writers: AuthBucket.users,
  feed: { subject: Subjects.authFeedAll, subscribers: AuthBucket.users },
  lookups: AuthBucket.users,
} as const satisfies StreamDefinition;

/**
 * The payments' read model (payment-views.ts): payments alone writes it; the gateway reads it to
 * answer a get, payments to never put an older view over a newer one. No feed: a get reads its key.
 */
export const PaymentViewsBucketStream = {
  name: `KV_${PaymentViewsBucket.name}`,
  subjects: [`$KV.${PaymentViewsBucket.name}.>`],
  writers: PaymentViewsBucket.writers,
  lookups: PaymentViewsBucket.readers,
} as const satisfies StreamDefinition;

/** The account that holds JetStream: every stream, bucket and consumer, and the provisioning step. */
export const JETSTREAM_ACCOUNT = 'JETSTREAM';

/** The account an identity logs into. */
export function accountOf(identity: NatsIdentity): string {
  return identity === 'provisioner' ? JETSTREAM_ACCOUNT : identity.toUpperCase().replace(/-/g, '_');
}

const API = '$JS.API';

/** A JetStream API subject, and whether it may answer with several messages. */
interface ApiSubject {
  subject: string;
  streamedAnswers?: boolean;
}
const one = (subject: string): ApiSubject => ({ subject });
const many = (subject: string): ApiSubject => ({ subject, streamedAnswers: true });

/**
 * What using JetStream asks of the server, by role. The subjects are JetStream's API
 * (https://docs.nats.io/reference/reference-protocols/nats_api_reference). No service creates,
 * changes or deletes a consumer: a push consumer's deliver subject is published inside the
 * JETSTREAM account, where the streams capture their subjects, so creating one would be
 * publishing there on any subject.
 */
const JetStreamApi = {
  /** The client's first question (jetstreamManager, Kvm): is JetStream there, and with which limits. */
  account: [one(`${API}.INFO`)],
  /** Binding a durable consumer, pulling its messages, acknowledging them (or saying they are in progress). */
  durableReader: (c: ConsumerDefinition) => [
    one(`${API}.CONSUMER.INFO.${c.stream}.${c.durable}`),
    many(`${API}.CONSUMER.MSG.NEXT.${c.stream}.${c.durable}`),
    one(`$JS.ACK.${c.stream}.${c.durable}.>`),
  ],
  /** A subject's last message, through the stream leader or from any replica; a batch of messages from any replica. */
  lookup: (s: StreamDefinition) => [
    one(`${API}.STREAM.INFO.${s.name}`),
    one(`${API}.STREAM.MSG.GET.${s.name}`),
    many(`${API}.DIRECT.GET.${s.name}`),
    one(`${API}.DIRECT.GET.${s.name}.>`),
  ],
  /** The provisioning step creates and updates every stream, consumer and bucket: all of the API. */
  administration: [`${API}.>`],
} as const;

interface Grants {
  publish: Set<string>;
  subscribe: Set<string>;
  allowResponses: boolean;
  imports: Map<string, NatsImport>;
}

/** Every grant of every identity, derived from the definitions. */
function grantsOfAll(): Map<NatsIdentity, Grants> {
  const grants = new Map<NatsIdentity, Grants>(
    NATS_IDENTITIES.map((identity) => [
      identity,
      {
        publish: new Set<string>(),
        subscribe: new Set([`${inboxPrefix(identity)}.>`]),
        allowResponses: false,
        imports: new Map<string, NatsImport>(),
      },
    ]),
  );
  const of = (identity: NatsIdentity) => grants.get(identity)!;
  const add = (identity: NatsIdentity, entry: NatsImport) => {
    if (entry.account !== accountOf(identity)) {
      of(identity).imports.set(`${entry.kind} ${entry.account} ${entry.subject}`, entry);
    }
  };
  /** Publishing onto another account's subjects: a service import each, allowed to the user. */
  const request = (identity: NatsIdentity, from: string, subjects: readonly ApiSubject[]) => {
    for (const { subject, streamedAnswers } of subjects) {
      of(identity).publish.add(subject);
      add(identity, { kind: 'service', subject, account: from, ...(streamedAnswers && { streamedAnswers }) });
    }
  };
  /** Receiving another account's subject: a stream import, subscribed to by the user. */
  const receive = (identity: NatsIdentity, from: string, subject: string) => {
    of(identity).subscribe.add(subject);
    add(identity, { kind: 'stream', subject, account: from });
  };
  const useJetStream = (identity: NatsIdentity, subjects: readonly ApiSubject[]) =>
    request(identity, JETSTREAM_ACCOUNT, [...JetStreamApi.account, ...subjects]);

  for (const rpc of allRpcs()) {
    of(rpc.server).subscribe.add(rpc.subject);
    of(rpc.server).allowResponses = true;
    for (const caller of rpc.callers) request(caller, accountOf(rpc.server), [one(rpc.subject)]);
  }
  for (const notice of Object.values(Notices) as NoticeDefinition[]) {
    for (const publisher of notice.publishers) of(publisher).publish.add(notice.subject);
    for (const subscriber of notice.subscribers) {
      for (const publisher of notice.publishers) receive(subscriber, accountOf(publisher), notice.subject);
    }
  }
  const streams: StreamDefinition[] = [...Object.values(Streams), AuthBucketStream, PaymentViewsBucketStream];
  for (const stream of streams) {
    for (const writer of stream.writers) {
      useJetStream(writer, stream.subjects.map(one));
    }
    for (const subscriber of stream.feed?.subscribers ?? [])
      receive(subscriber, JETSTREAM_ACCOUNT, stream.feed!.subject);
    for (const reader of stream.lookups ?? []) useJetStream(reader, JetStreamApi.lookup(stream));
  }
  for (const consumer of Object.values(Consumers) as ConsumerDefinition[]) {
    useJetStream(consumer.reader, JetStreamApi.durableReader(consumer));
    receive(consumer.reader, JETSTREAM_ACCOUNT, leaderElectedAdvisory(consumer));
  }
  JetStreamApi.administration.forEach((subject) => of('provisioner').publish.add(subject));
  return grants;
}

const sorted = (values: Iterable<string>) => [...values].sort();

/** The permissions of every identity's users inside its account, derived from the definitions. */
export function natsPermissions(): Record<NatsIdentity, NatsPermissions> {
  const grants = grantsOfAll();
  return Object.fromEntries(
    NATS_IDENTITIES.map((identity) => {
      const g = grants.get(identity)!;
      return [
        identity,
        {
          publish: { allow: sorted(g.publish) },
          subscribe: { allow: sorted(g.subscribe) },
          allowResponses: g.allowResponses,
        },
      ];
    }),
  ) as Record<NatsIdentity, NatsPermissions>;
}

/**
 * The NATS accounts: JETSTREAM, with JetStream and the provisioning step, and one per other
 * identity, each with its imports and, as their other side, the exports of the accounts they
 * import from (a subject exported to exactly the accounts that import it).
 */
export function natsAccounts(): NatsAccount[] {
  const grants = grantsOfAll();
  const names = [...new Set(NATS_IDENTITIES.map(accountOf))];
  const accounts = new Map<string, NatsAccount>(
    names.map((name) => [
      name,
      {
        name,
        identities: NATS_IDENTITIES.filter((identity) => accountOf(identity) === name),
        jetstream: name === JETSTREAM_ACCOUNT,
        imports: [],
        exports: [],
      },
    ]),
  );
  const offers = new Map<string, NatsExport & { from: string }>();
  for (const identity of NATS_IDENTITIES) {
    const account = accounts.get(accountOf(identity))!;
    for (const entry of grants.get(identity)!.imports.values()) {
      account.imports.push(entry);
      const key = `${entry.kind} ${entry.account} ${entry.subject}`;
      const shared = offers.get(key) ?? {
        from: entry.account,
        kind: entry.kind,
        subject: entry.subject,
        accounts: [],
        ...(entry.streamedAnswers && { streamedAnswers: true }),
      };
      if (!shared.accounts.includes(account.name)) shared.accounts.push(account.name);
      offers.set(key, shared);
    }
  }
  for (const { from, ...entry } of offers.values()) {
    accounts.get(from)!.exports.push({ ...entry, accounts: entry.accounts.sort() });
  }
  for (const account of accounts.values()) {
    account.imports.sort((a, b) => `${a.kind} ${a.subject}`.localeCompare(`${b.kind} ${b.subject}`));
    account.exports.sort((a, b) => `${a.kind} ${a.subject}`.localeCompare(`${b.kind} ${b.subject}`));
  }
  return [...accounts.values()];
}
