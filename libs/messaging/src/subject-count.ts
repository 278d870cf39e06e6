import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { StreamDefinition } from '@pix/contracts';

/**
 * How many subjects of a stream match a filter and hold a message (stream info with a subject
 * filter: one request, answered from the stream's subject index, whatever the messages hold). A
 * stream's `lookups` may ask it.
 */
export class SubjectCount {
  private jsm: JetStreamManager | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly stream: StreamDefinition,
  ) {}

  async of(filter: string): Promise<number> {
    this.jsm ??= await jetstreamManager(this.nc);
    const info = await this.jsm.streams.info(this.stream.name, { subjects_filter: filter });
    return Object.keys(info.state.subjects ?? {}).length;
  }
}
