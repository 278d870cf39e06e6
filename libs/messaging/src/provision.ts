import {
  AckPolicy,
  DeliverPolicy,
  jetstreamManager,
  RetentionPolicy,
  type ConsumerConfig,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  AuthBucket,
  AuthBucketStream,
  Consumers,
  PaymentViewsBucket,
  Streams,
  type ConsumerDefinition,
  type StreamDefinition,
} from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { ACK_WAIT_MS } from './jetstream';
import { retrySetup } from './setup-retry';

/**
 * Window in which JetStream drops a re-published message with an already seen Nats-Msg-Id. It is
 * the outer bound for a publisher that crashed after publishing and before recording that it did;
 * consumers also deduplicate by event id, so a later duplicate is harmless.
 */
const DUPLICATE_WINDOW_MS = 2 * 60 * 60 * 1000;
/** Events stay long enough for the longest webhook retry schedule to finish. */
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Creates the platform's streams, durable consumers and buckets (AUTH, PAYMENT_VIEWS), or updates them to this
 * configuration: the provisioning step's work (`admin nats provision`: `make up` and the tests run
 * it before the services, Kubernetes as a Job), not the services'. A stream's or a consumer's
 * configuration can send its messages onto any subject (a republish, a push consumer's deliver
 * subject), so whoever may write one could make a fact of anything; the services may only bind to
 * what is here. A stream with a feed republishes its messages onto the feed's subject (the gateway's
 * live pages and auth cache receive them there instead of creating consumers of their own); an
 * existing stream or bucket gets a changed configuration, feeds included, by an update. Safe to run again, and patient with a cluster that is still forming (retrySetup).
 * `replicas` > 1 spreads each stream over that many servers of a cluster, so losing one loses nothing.
 */
export async function provisionJetStream(nc: NatsConnection, replicas = 1, logger?: Logger): Promise<void> {
  await retrySetup(
    'jetstream',
    async () => {
      const jsm = await jetstreamManager(nc);
      for (const stream of Object.values(Streams) as StreamDefinition[]) await putStream(jsm, stream, replicas);
      for (const consumer of Object.values(Consumers) as ConsumerDefinition[]) await putConsumer(jsm, consumer);
      await new Kvm(nc).create(AuthBucket.name, { history: AuthBucket.history, replicas });
      await putFeed(jsm, AuthBucketStream);
      await new Kvm(nc).create(PaymentViewsBucket.name, {
        history: PaymentViewsBucket.history,
        ttl: PaymentViewsBucket.maxAgeMs,
        replicas,
      });
    },
    logger,
  );
}

async function putStream(jsm: JetStreamManager, stream: StreamDefinition, replicas: number): Promise<void> {
  const config: Partial<StreamConfig> & { name: string } = {
    name: stream.name,
    subjects: [...stream.subjects],
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    // Scheduled work must outlive any deadline (a charge may live for weeks); it leaves the
    // stream when it is done (work queue), not by age. A counter's total is its last message.
    max_age: stream.workQueue || stream.counters ? 0 : nanos(MAX_AGE_MS),
    num_replicas: replicas,
    ...(stream.schedules && { allow_msg_schedules: true }),
    ...(stream.workQueue && { retention: RetentionPolicy.Workqueue }),
    // The server keeps only each counter's last message, which holds its total.
    ...(stream.counters && { allow_msg_counter: true, allow_direct: true, max_msgs_per_subject: 1 }),
    ...(stream.feed && { republish: republishOf(stream) }),
  };
  const existing = await jsm.streams.info(stream.name).then(
    (info) => info.config,
    () => undefined,
  );
  if (!existing) await jsm.streams.add(config);
  else if (differs(existing, config)) await jsm.streams.update(stream.name, config);
}

/**
 * A stream's feed: each message it stores republished onto the feed's subject, the stream's one
 * subject's tokens after the feed's prefix (payments.events.created → feeds.payments.events.created).
 */
function republishOf(stream: StreamDefinition): { src: string; dest: string } {
  const [subject, ...more] = stream.subjects;
  if (!stream.feed || !subject || more.length > 0)
    throw new Error(`${stream.name}: a feed takes a stream of one subject`);
  return { src: subject, dest: stream.feed.subject };
}

/** The feed of a stream created by other means (a bucket: Kvm creates it, and leaves an existing one as it is). */
async function putFeed(jsm: JetStreamManager, stream: StreamDefinition): Promise<void> {
  const existing = (await jsm.streams.info(stream.name)).config;
  const wanted = { republish: republishOf(stream) };
  if (differs(existing, wanted)) await jsm.streams.update(stream.name, { ...existing, ...wanted });
}

/**
 * A definition's durable, explicitly acked pull consumer. A changed filter is an update of the
 * consumer in place (nats-server 2.10 and later): it keeps its position and its unacked messages,
 * so what it would have delivered under the old filter and still matches the new one is delivered.
 */
async function putConsumer(jsm: JetStreamManager, consumer: ConsumerDefinition): Promise<void> {
  const [first, ...more] = consumer.filterSubjects;
  const full: Partial<ConsumerConfig> = {
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: -1,
    ...(consumer.maxAckPending !== undefined && { max_ack_pending: consumer.maxAckPending }),
    durable_name: consumer.durable,
    // One filter or a list, never both; the other one is named too, unset, since an update is
    // merged into the consumer's configuration as the server holds it.
    filter_subject: more.length === 0 ? first : undefined,
    filter_subjects: more.length === 0 ? undefined : [first, ...more],
  };
  const existing = await jsm.consumers.info(consumer.stream, consumer.durable).then(
    (info) => info.config,
    () => undefined,
  );
  if (!existing) await jsm.consumers.add(consumer.stream, full);
  else if (differs(existing, full)) await jsm.consumers.update(consumer.stream, consumer.durable, full);
}

/**
 * Whether a stream's or consumer's configuration on the server differs from what is wanted in any
 * setting the platform sets. An update is a proposal to the whole cluster; as things are, there
 * is nothing to update.
 */
function differs<C extends object>(existing: C, wanted: Partial<C>): boolean {
  return Object.entries(wanted).some(
    ([key, value]) => JSON.stringify(existing[key as keyof C]) !== JSON.stringify(value),
  );
}
