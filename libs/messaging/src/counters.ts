import { jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import type { StreamDefinition } from '@pix/contracts';

/** The header a counter stream adds to the subject's total (nats-server 2.12 message counters). */
const INCREMENT = 'Nats-Incr';

/**
 * Adds `by` to the counter `subject` of a counter stream. The message id makes it count once: a
 * second publish of the same id within the stream's duplicate window adds nothing.
 */
export async function incrementCounter(js: JetStreamClient, subject: string, by: number, msgId: string): Promise<void> {
  const h = headers();
  h.set(INCREMENT, String(by));
  await js.publish(subject, undefined, { headers: h, msgID: msgId });
}

/**
 * Reads counters of a counter stream. Through the stream leader (not a direct get, which a replica
 * that is behind may answer), so a read follows every increment acknowledged before it.
 */
export class CounterReader {
  private jsm: JetStreamManager | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly stream: StreamDefinition,
  ) {}

  /** The counter's total; 0 for a counter never incremented. */
  async read(subject: string): Promise<number> {
    this.jsm ??= await jetstreamManager(this.nc);
    const last = await this.jsm.streams.getMessage(this.stream.name, { last_by_subj: subject });
    return last ? Number(last.json<{ val: string }>().val) : 0;
  }
}
