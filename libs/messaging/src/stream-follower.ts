import { DeliverPolicy, jetstream, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@pix/observability';

/** How long to wait before following again when the stream cannot be followed (not created yet, NATS down). */
const RETRY_MS = 1000;

/**
 * Follows a stream's new messages with an ordered consumer. Unlike a durable consumer, whose
 * messages the replicas of a service split between them, it is ephemeral and this process's own,
 * so every process following the stream sees every message. Nothing is acked or kept for it: the
 * client recreates the consumer after a gap or a reconnect from the last message it saw, and when
 * even that fails the follower starts again from new messages a second later. One filter subject:
 * the consumer is then created by a name and a subject that carry its filter, which NATS
 * permissions can hold a follower to (contracts' permissions.ts).
 */
export function followStream(
  nc: NatsConnection,
  options: {
    stream: string;
    subject: string;
    logger: Logger;
    /** Called each time the consumer is in place: every message published after it is seen. */
    onFollowing?: () => void;
  },
  onMessage: (msg: JsMsg) => void,
): { stop: () => Promise<void> } {
  let stopped = false;
  let failing = false;
  let messages: ConsumerMessages | undefined;
  const run = (async () => {
    while (!stopped) {
      try {
        const consumer = await jetstream(nc).consumers.get(options.stream, {
          filter_subjects: options.subject,
          deliver_policy: DeliverPolicy.New,
        });
        messages = await consumer.consume();
        if (stopped) await messages.close();
        options.onFollowing?.();
        if (failing) options.logger.info({ stream: options.stream }, 'following the stream again');
        failing = false;
        for await (const msg of messages) {
          try {
            onMessage(msg);
          } catch (err) {
            options.logger.error({ err, subject: msg.subject }, 'stream follower handler failed');
          }
        }
      } catch (err) {
        // Once per outage, not every second of it.
        if (!stopped && !failing)
          options.logger.warn({ err, stream: options.stream }, 'cannot follow the stream; retrying');
        failing = true;
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await messages?.close();
      await run;
    },
  };
}
