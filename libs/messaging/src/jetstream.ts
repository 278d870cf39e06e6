import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerConfig,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { context } from '@opentelemetry/api';
import { Streams } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { contextFromHeaders, traceHeaders } from './headers';

/**
 * Window in which JetStream drops a re-published message with an already seen Nats-Msg-Id. It is
 * the outer bound for a publisher that crashed after publishing and before recording that it did;
 * consumers also deduplicate by event id, so a later duplicate is harmless.
 */
const DUPLICATE_WINDOW_MS = 2 * 60 * 60 * 1000;
/** Events stay long enough for the longest webhook retry schedule to finish. */
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Creates the platform's streams, or updates them to this configuration. Safe on every start.
 * `replicas` > 1 spreads each stream over that many servers of a cluster, so losing one loses nothing.
 */
export async function ensureStreams(nc: NatsConnection, replicas = 1): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const stream of Object.values(Streams)) {
    const config = {
      name: stream.name,
      subjects: [...stream.subjects],
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      max_age: nanos(MAX_AGE_MS),
      num_replicas: replicas,
    };
    try {
      await jsm.streams.info(stream.name);
      await jsm.streams.update(stream.name, config);
    } catch {
      await jsm.streams.add(config);
    }
  }
}

/** Creates a durable, explicitly acked pull consumer if it does not exist yet. */
export async function ensureConsumer(
  nc: NatsConnection,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const full: Partial<ConsumerConfig> = {
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(30_000),
    max_deliver: -1,
    ...config,
  };
  try {
    await jsm.consumers.info(stream, config.durable_name);
    await jsm.consumers.update(stream, config.durable_name, full);
  } catch {
    await jsm.consumers.add(stream, full);
  }
}

/**
 * Publishes a fact with a stable id. JetStream drops a second publish of the same id inside the
 * duplicate window, which is what makes "publish, crash, publish again" end with one message.
 */
export async function publishEvent(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  eventId: string,
): Promise<{ duplicate: boolean; seq: number }> {
  const ack = await js.publish(subject, JSON.stringify(payload), {
    msgID: eventId,
    headers: traceHeaders(),
  });
  return { duplicate: ack.duplicate, seq: ack.seq };
}

export type HandlerOutcome = { ack: true } | { ack: false; retryInMs: number };

/**
 * Consumes a durable consumer until stopped. Each message runs in the trace context it was
 * published with; the handler decides ack or a delayed redelivery. A handler that throws is
 * logged and redelivered after `retryOnErrorMs`, so nothing is dropped on a bug or an outage.
 */
export async function startConsumer(
  nc: NatsConnection,
  options: {
    stream: string;
    durable: string;
    logger: Logger;
    retryOnErrorMs?: number;
    maxMessages?: number;
  },
  handler: (msg: JsMsg) => Promise<HandlerOutcome>,
): Promise<{ stop: () => Promise<void> }> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(options.stream, options.durable);
  const messages = await consumer.consume({ max_messages: options.maxMessages ?? 64 });
  const retryOnErrorMs = options.retryOnErrorMs ?? 1000;
  let stopping = false;
  const done = (async () => {
    for await (const msg of messages) {
      // After stop() the iterator still yields what was fetched ahead: hand it back at once, so
      // another replica (or this one, restarted) takes it now rather than after ack_wait.
      if (stopping) {
        msg.nak();
        continue;
      }
      await context.with(contextFromHeaders(msg.headers), async () => {
        try {
          const outcome = await handler(msg);
          if (outcome.ack) msg.ack();
          else msg.nak(outcome.retryInMs);
        } catch (err) {
          options.logger.error({ err, subject: msg.subject, seq: msg.seq }, 'message handler failed');
          msg.nak(retryOnErrorMs);
        }
      });
    }
  })();
  return {
    /** Stops fetching, finishes the message in hand (ack or nak), hands back the rest. */
    stop: async () => {
      stopping = true;
      await messages.close();
      await done;
    },
  };
}

export { jetstream };
export type { JetStreamClient, JsMsg };
