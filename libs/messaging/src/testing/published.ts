import type { JetStreamClient } from '@nats-io/jetstream';

/** One message the code under test published: its parsed body, and its message id or its schedule. */
export interface Published<Body> {
  subject: string;
  body: Body;
  id?: string;
  at?: Date;
  target?: string;
}

/**
 * A JetStream client that only records what is published (a message id once, as JetStream's
 * duplicate window keeps it), for unit tests of code that publishes facts and scheduled next tries
 * without a server. Not built into dist (tsconfig excludes it).
 */
export function capturePublished<Body = Record<string, unknown>>(): {
  js: JetStreamClient;
  published: Published<Body>[];
} {
  const published: Published<Body>[] = [];
  const seqOfId = new Map<string, number>();
  const js = {
    publish: async (
      subject: string,
      data: string,
      options?: { msgID?: string; schedule?: { specification: Date; target: string } },
    ) => {
      // A message id published before is a duplicate, stored once, as JetStream's duplicate window does.
      const earlier = options?.msgID === undefined ? undefined : seqOfId.get(options.msgID);
      if (earlier !== undefined) return { duplicate: true, seq: earlier };
      if (options?.msgID !== undefined) seqOfId.set(options.msgID, published.length + 1);
      published.push({
        subject,
        body: JSON.parse(data) as Body,
        id: options?.msgID,
        at: options?.schedule?.specification,
        target: options?.schedule?.target,
      });
      return { duplicate: false, seq: published.length };
    },
  } as unknown as JetStreamClient;
  return { js, published };
}
