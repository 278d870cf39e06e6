import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectAs, type StackNats } from '@pix/devstack';

/**
 * A connection for what the tests read and change in JetStream behind the services' backs (stream
 * and consumer state, purges, pauses): the provisioning identity's, JetStream's administrator.
 */
export function jetStreamAdmin(stack: StackNats, options: { reconnect?: boolean } = {}): Promise<NatsConnection> {
  return connectAs(stack.natsUrl, 'provisioner', stack.natsCredentials, options);
}

/** Every message stored on `subject` (wildcards allowed) in a JetStream stream, oldest first, with its Nats-Msg-Id. */
export async function streamMessages<T = Record<string, unknown>>(
  stack: StackNats,
  stream: string,
  subject: string,
): Promise<{ msgId: string | undefined; data: T }[]> {
  const nc = await jetStreamAdmin(stack);
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream, { subjects_filter: subject });
    const stored = Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
    if (stored === 0) return [];
    // An ordered consumer: ephemeral, reads the stream without touching any durable consumer.
    const consumer = await jetstream(nc).consumers.get(stream, { filter_subjects: [subject] });
    const out: { msgId: string | undefined; data: T }[] = [];
    const messages = await consumer.fetch({ max_messages: stored, expires: 5000 });
    for await (const msg of messages) {
      out.push({ msgId: msg.headers?.get('Nats-Msg-Id'), data: msg.json<T>() });
      if (out.length === stored) break;
    }
    return out;
  } finally {
    await nc.close();
  }
}
