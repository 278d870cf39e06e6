import { AuthBucket } from './auth';
import { inboxPrefix, NATS_IDENTITIES, type NatsIdentity } from './identities';
import { Notices, type NoticeDefinition } from './notices';
import { AdapterRpc } from './rpc/adapter';
import type { RpcDefinition } from './rpc/define-rpc';
import { DispatcherRpc } from './rpc/dispatcher';
import { GatewayRpc } from './rpc/gateway';
import { PaymentsRpc } from './rpc/payments';
import { SandboxRpc } from './rpc/sandbox';
import { Consumers, Streams, type ConsumerDefinition, type StreamDefinition } from './streams';

/**
 * Who may publish and subscribe to what on NATS, for each identity: nothing here is written by
 * hand, every line follows from a definition that names its users (an RPC its server and callers,
 * a stream its writers, followers and lookups, a durable consumer its reader, a notice its
 * publishers and subscribers, the AUTH bucket its users). nats-authorization.ts renders it as the
 * server's configuration, for `make up` and for Kubernetes alike.
 */
export interface NatsPermissions {
  publish: { allow: string[]; deny: string[] };
  subscribe: { allow: string[] };
  /** May answer the requests it receives (once each, on the reply subject the request names). */
  allowResponses: boolean;
}

/** Every group of request/reply operations. A new group is listed here; permissions.test.ts fails until it is. */
export const RPC_GROUPS = { PaymentsRpc, AdapterRpc, SandboxRpc, GatewayRpc, DispatcherRpc } as const;

/** Every RPC definition of the groups above. */
export function allRpcs(): RpcDefinition[] {
  return Object.values(RPC_GROUPS).flatMap((group) => Object.values(group) as RpcDefinition[]);
}

/** A key-value bucket is a stream that NATS names after it. */
export const AuthBucketStream = {
  name: `KV_${AuthBucket.name}`,
  subjects: [`$KV.${AuthBucket.name}.>`],
  writers: AuthBucket.users,
  followers: AuthBucket.users,
  lookups: AuthBucket.users,
} as const satisfies StreamDefinition;

const API = '$JS.API';

/**
 * What using JetStream asks of the server, by role. The subjects are JetStream's API
 * (https://docs.nats.io/reference/reference-protocols/nats_api_reference).
 */
const JetStreamApi = {
  /** The client's first question (jetstreamManager, Kvm): is JetStream there, and with which limits. */
  account: [`${API}.INFO`],
  /** Binding a durable consumer, pulling its messages, acknowledging them (or saying they are in progress). */
  durableReader: (c: ConsumerDefinition) => [
    `${API}.CONSUMER.INFO.${c.stream}.${c.durable}`,
    `${API}.CONSUMER.MSG.NEXT.${c.stream}.${c.durable}`,
    `$JS.ACK.${c.stream}.${c.durable}.>`,
  ],
  /**
   * Ordered consumers of one's own on a stream: created with their name and filter in the subject
   * (the legacy forms, whose subject names no consumer, are not allowed), pulled, deleted, and the
   * flow control of a pushed one (a bucket's watch) answered.
   */
  follower: (s: StreamDefinition) => [
    `${API}.STREAM.INFO.${s.name}`,
    `${API}.CONSUMER.CREATE.${s.name}.*.>`,
    `${API}.CONSUMER.INFO.${s.name}.*`,
    `${API}.CONSUMER.MSG.NEXT.${s.name}.*`,
    `${API}.CONSUMER.DELETE.${s.name}.*`,
    `$JS.FC.${s.name}.>`,
  ],
  /** A follower's names are any names but those of the stream's durable consumers, which their readers alone may touch. */
  notAnotherReader: (c: ConsumerDefinition) => [
    `${API}.CONSUMER.CREATE.${c.stream}.${c.durable}`,
    `${API}.CONSUMER.CREATE.${c.stream}.${c.durable}.>`,
    `${API}.CONSUMER.MSG.NEXT.${c.stream}.${c.durable}`,
    `${API}.CONSUMER.DELETE.${c.stream}.${c.durable}`,
  ],
  /** A subject's last message, through the stream leader or from any replica. */
  lookup: (s: StreamDefinition) => [
    `${API}.STREAM.INFO.${s.name}`,
    `${API}.STREAM.MSG.GET.${s.name}`,
    `${API}.DIRECT.GET.${s.name}`,
    `${API}.DIRECT.GET.${s.name}.>`,
  ],
  /** The provisioning step creates and updates every stream, consumer and bucket: all of the API. */
  administration: [`${API}.>`],
} as const;

interface Grants {
  publish: Set<string>;
  deny: Set<string>;
  subscribe: Set<string>;
  allowResponses: boolean;
}

/** The permissions of every identity, derived from the definitions. */
export function natsPermissions(): Record<NatsIdentity, NatsPermissions> {
  const grants = new Map<NatsIdentity, Grants>(
    NATS_IDENTITIES.map((identity) => [
      identity,
      {
        publish: new Set<string>(),
        deny: new Set<string>(),
        subscribe: new Set([`${inboxPrefix(identity)}.>`]),
        allowResponses: false,
      },
    ]),
  );
  const of = (identity: NatsIdentity) => grants.get(identity)!;
  const publish = (identity: NatsIdentity, subjects: readonly string[]) =>
    subjects.forEach((subject) => of(identity).publish.add(subject));

  for (const rpc of allRpcs()) {
    of(rpc.server).subscribe.add(rpc.subject);
    of(rpc.server).allowResponses = true;
    for (const caller of rpc.callers) publish(caller, [rpc.subject]);
  }
  for (const notice of Object.values(Notices) as NoticeDefinition[]) {
    for (const publisher of notice.publishers) publish(publisher, [notice.subject]);
    for (const subscriber of notice.subscribers) of(subscriber).subscribe.add(notice.subject);
  }
  const consumers = Object.values(Consumers) as ConsumerDefinition[];
  for (const stream of [...(Object.values(Streams) as StreamDefinition[]), AuthBucketStream]) {
    for (const writer of stream.writers) publish(writer, [...JetStreamApi.account, ...stream.subjects]);
    for (const follower of stream.followers ?? []) {
      publish(follower, [...JetStreamApi.account, ...JetStreamApi.follower(stream)]);
      for (const consumer of consumers.filter((c) => c.stream === stream.name && c.reader !== follower)) {
        JetStreamApi.notAnotherReader(consumer).forEach((subject) => of(follower).deny.add(subject));
      }
    }
    for (const reader of stream.lookups ?? [])
      publish(reader, [...JetStreamApi.account, ...JetStreamApi.lookup(stream)]);
  }
  for (const consumer of consumers) {
    publish(consumer.reader, [...JetStreamApi.account, ...JetStreamApi.durableReader(consumer)]);
  }
  publish('provisioner', JetStreamApi.administration);

  const sorted = (set: Set<string>) => [...set].sort();
  return Object.fromEntries(
    NATS_IDENTITIES.map((identity) => {
      const g = of(identity);
      return [
        identity,
        {
          publish: { allow: sorted(g.publish), deny: sorted(g.deny) },
          subscribe: { allow: sorted(g.subscribe) },
          allowResponses: g.allowResponses,
        },
      ];
    }),
  ) as Record<NatsIdentity, NatsPermissions>;
}
