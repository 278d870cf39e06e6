import { jetstream, type ConsumerMessages, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { propagation, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { leaderElectedAdvisory, type ConsumerDefinition } from '@pix/contracts';
import type { Logger } from '@pix/observability';
import { isNatsConnected } from './connection';
import { contextFromHeaders, traceHeaders } from './headers';
import { retrySetup } from './setup-retry';
import { consumerPending, consumerRedeliveries, failSpan, natsAttributes, tracer } from './telemetry';

/**
 * How often a consumer's lag is read from the server for jetstream_consumer_pending: as often as
 * Prometheus scrapes (every 15 s, k8s/src/monitoring.ts and deploy/prometheus.yml), so no scrape
 * reads a figure older than one interval; its alert waits 10 minutes. Each read is a request to the
 * server per consumer, which cost a third of an idle stack's JetStream traffic at 5 s. Readiness
 * reads it too (isBound), and the first read comes at start.
 */
const PENDING_REFRESH_MS = 15_000;
/**
 * How long the server waits for a delivered message's ack before it delivers it again, to another
 * replica: the time a replica that died leaves its messages unhandled. Short, because a handler
 * still at work says so (see WORKING_EVERY_MS), however long it takes.
 */
export const ACK_WAIT_MS = 5000;
/** How often a message still in a handler's hands is reported in progress, well within ACK_WAIT_MS. */
const WORKING_EVERY_MS = 1500;
/**
 * How long one pull waits on the server. Its heartbeats come at half of it, and two missed ones
 * make the client pull again, within this rather than the client's default of 30 s, when a pull is
 * lost unannounced (a consumer's new leader is announced: startConsumer pulls again at once).
 */
const PULL_EXPIRES_MS = 5000;

/**
 * A scheduled message (nats-server 2.12 message schedules): the stream keeps it under its own
 * subject and, at `at`, publishes it on `target` (a subject of the same stream). A time in the past
 * fires at once.
 */
export interface Schedule {
  at: Date;
  target: string;
}

/**
 * How long a scheduled retry of work waits after its `attempt`-th try failed: `firstMs`, doubling
 * each try, never more than `maxMs`.
 */
export function retryDelay(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(attempt - 1, 16));
}

/**
 * Publishes a fact with a stable id (with `schedule`, a message delivered later on another subject). JetStream drops a second publish of the same id inside the
 * duplicate window, which is what makes "publish, crash, publish again" end with one message.
 */
export async function publishEvent(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  eventId: string,
  options: { schedule?: Schedule } = {},
): Promise<{ duplicate: boolean; seq: number }> {
  return tracer.startActiveSpan(
    `${subject} publish`,
    { kind: SpanKind.PRODUCER, attributes: { ...natsAttributes(subject, 'publish'), 'messaging.message.id': eventId } },
    async (span) => {
      try {
        const ack = await js.publish(subject, JSON.stringify(payload), {
          msgID: eventId,
          headers: traceHeaders(),
          ...(options.schedule && {
            schedule: { specification: options.schedule.at, target: options.schedule.target },
          }),
        });
        return { duplicate: ack.duplicate, seq: ack.seq };
      } catch (err) {
        failSpan(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}

export type HandlerOutcome = { ack: true } | { ack: false; retryInMs: number };

/**
 * A `serializeBy` key: the string `field` of a message's JSON body (a payment's id, a charge's
 * txid); undefined when the body has none or is not JSON, and the message then waits for no other.
 */
export function bodyField(field: string): (msg: JsMsg) => string | undefined {
  return (msg) => {
    try {
      const value = msg.json<Record<string, unknown>>()[field];
      return typeof value === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  };
}

/**
 * Consumes a durable consumer until stopped. Each message is handled in a CONSUMER span, child of
 * the publisher's; the handler decides ack or a delayed redelivery. A handler that throws is
 * logged and redelivered after `retryOnErrorMs`, so nothing is dropped on a bug or an outage.
 * While a message is in hand (handled, or waiting behind another of its key) it is reported in
 * progress every WORKING_EVERY_MS, so the consumer's short ack wait only ever expires for a replica
 * that is gone. `isBound` tells readiness whether the server still has the consumer and answers for it.
 * The consumer is the provisioning step's to create (provision.ts): a service started before it
 * waits for it, as for any setup (retrySetup).
 */
export async function startConsumer(
  nc: NatsConnection,
  consumer: ConsumerDefinition,
  options: {
    logger: Logger;
    retryOnErrorMs?: number;
    maxMessages?: number;
    /**
     * Handle messages concurrently instead of one after another: the handler is not awaited before
     * the next message (it must bound its own concurrency); stop() still waits for every one.
     */
    parallel?: boolean;
    /**
     * With `parallel`: messages with the same key are handled one after another, in the order they
     * arrived (one payment's facts in their order); different keys concurrently.
     */
    serializeBy?: (msg: JsMsg) => string | undefined;
    /**
     * With `parallel`: how many messages are handled at once at most. Unset, the handler bounds its
     * own concurrency (the dispatcher's attempts wait for their endpoint's slot inside it).
     */
    maxInFlight?: number;
    /**
     * The trace context a message carries in its body, for messages that arrive without the
     * publisher's headers (a JetStream scheduled message keeps only the scheduler's).
     */
    traceOf?: (msg: JsMsg) => Record<string, string> | undefined;
  },
  handler: (msg: JsMsg) => Promise<HandlerOutcome>,
): Promise<{ stop: () => Promise<void>; isBound: () => Promise<boolean> }> {
  const js = jetstream(nc);
  const bound = await retrySetup(
    `consumer ${consumer.durable}`,
    () => js.consumers.get(consumer.stream, consumer.durable),
    options.logger,
  );
  const pull = () => bound.consume({ max_messages: options.maxMessages ?? 64, expires: PULL_EXPIRES_MS });
  let messages = await pull();
  const retryOnErrorMs = options.retryOnErrorMs ?? 1000;
  const labels = { stream: consumer.stream, consumer: consumer.durable };
  let stopped = false;

  const isBound = async (): Promise<boolean> => {
    // Disconnected, it is not bound, and asking the server would only wait for the check's timeout.
    if (stopped || !isNatsConnected(nc)) return false;
    const info = await bound.info();
    consumerPending.set(labels, info.num_pending);
    return true;
  };
  const readPending = () => void isBound().catch(() => undefined);
  const refresh = setInterval(readPending, PENDING_REFRESH_MS);
  refresh.unref();
  readPending();

  const inHand = new Set<Promise<void>>();
  const chains = new Map<string, Promise<void>>();
  // The messages in a handler's hands, reported in progress every WORKING_EVERY_MS. The timer runs
  // only while there are some, so an idle consumer does not wake up for nothing; it is armed when a
  // message arrives or already running, so each is still reported within WORKING_EVERY_MS of its
  // arrival and every WORKING_EVERY_MS after, as before.
  const held = new Set<JsMsg>();
  let working: NodeJS.Timeout | undefined;
  const hold = (msg: JsMsg) => {
    held.add(msg);
    if (working) return;
    working = setInterval(() => {
      for (const inProgress of held) inProgress.working();
    }, WORKING_EVERY_MS);
    working.unref();
  };
  const release = (msg: JsMsg) => {
    held.delete(msg);
    if (held.size > 0 || !working) return;
    clearInterval(working);
    working = undefined;
  };
  const parentContext = (msg: JsMsg) => {
    const carrier = msg.headers?.has('traceparent') ? undefined : options.traceOf?.(msg);
    return carrier ? propagation.extract(ROOT_CONTEXT, carrier) : contextFromHeaders(msg.headers);
  };
  const handle = (msg: JsMsg) =>
    tracer.startActiveSpan(
      `${msg.subject} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          ...natsAttributes(msg.subject, 'process'),
          'messaging.consumer.group.name': consumer.durable,
          'messaging.message.delivery_count': msg.info.deliveryCount,
        },
      },
      parentContext(msg),
      async (span) => {
        try {
          const outcome = await handler(msg);
          if (outcome.ack) msg.ack();
          else msg.nak(outcome.retryInMs);
        } catch (err) {
          options.logger.error({ err, subject: msg.subject, seq: msg.seq }, 'message handler failed');
          failSpan(span, err);
          msg.nak(retryOnErrorMs);
        } finally {
          release(msg);
          span.end();
        }
      },
    );
  /**
   * Handles what one pull yields, once the pull before it has yielded all it had (`after`): one
   * after another, or each key in turn, across pulls as within one.
   */
  const take = async (from: ConsumerMessages, after: Promise<void>) => {
    // A pull that ended in an error is no reason to leave the next one unread.
    await after.catch((err: unknown) => options.logger.error({ ...labels, err }, 'a pull ended in an error'));
    for await (const msg of from) {
      // After stop() the iterator still yields what was fetched ahead: hand it back at once, so
      // another replica (or this one, restarted) takes it now rather than after ack_wait.
      if (stopped) {
        msg.nak();
        continue;
      }
      if (msg.info.redelivered) consumerRedeliveries.inc(labels);
      hold(msg);
      if (!options.parallel) {
        await handle(msg);
        continue;
      }
      while (inHand.size >= (options.maxInFlight ?? Infinity)) await Promise.race(inHand);
      const key = options.serializeBy?.(msg);
      const before = key === undefined ? undefined : chains.get(key);
      const task: Promise<void> = (before ?? Promise.resolve())
        .then(() => handle(msg))
        .finally(() => {
          inHand.delete(task);
          if (key !== undefined && chains.get(key) === task) chains.delete(key);
        });
      if (key !== undefined) chains.set(key, task);
      inHand.add(task);
    }
  };
  let done = take(messages, Promise.resolve());

  // A pull waits on the consumer's leader. When that member dies, the pull dies with it, and the
  // client pulls again only after two missed heartbeats: measured on a 3-member cluster, a consumer
  // whose leader was killed took 4.8-10 s after its new leader's election to receive again. The
  // server announces the election; a new pull then resumes at once, and the old one is closed
  // once it has yielded what it had.
  let repulling = Promise.resolve();
  const pullAgain = async () => {
    if (stopped) return;
    const previous = messages;
    messages = await pull();
    done = take(messages, done);
    options.logger.info(labels, 'consumer has a new leader: pulled again');
    await previous.close();
  };
  const elections = nc.subscribe(leaderElectedAdvisory(consumer), {
    callback: (err) => {
      if (err) return;
      repulling = repulling
        .then(pullAgain)
        .catch((error: unknown) => options.logger.warn({ ...labels, err: error }, 'pulling again failed'));
    },
  });
  return {
    /** Stops fetching, finishes the messages in hand (ack or nak), hands back the rest. */
    stop: async () => {
      stopped = true;
      clearInterval(refresh);
      elections.unsubscribe();
      await repulling;
      await messages.close();
      await done;
      await Promise.all(inHand);
    },
    isBound,
  };
}

export { jetstream };
export type { JetStreamClient, JsMsg };
