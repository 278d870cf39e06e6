import { connect, type NatsConnection } from '@nats-io/transport-node';
import { defineRpc } from '@pix/contracts';
import { createLogger } from '@pix/observability';
import { z } from 'zod';
import { sharedStack } from '../support/stack';
import { callRpc, serveRpc } from '@pix/messaging';

describe('serveRpc drain', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: sharedStack().natsUrl });
  });
  afterAll(() => nc.close());

  it('resolves only once every request it took is answered', async () => {
    const subject = `test.drain.${Date.now()}`;
    let release!: () => void;
    const handlerMayFinish = new Promise<void>((resolve) => (release = resolve));
    let handlerStarted!: () => void;
    const started = new Promise<void>((resolve) => (handlerStarted = resolve));
    const double = defineRpc(subject, z.object({ n: z.number() }), z.object({ doubled: z.number() }));
    const server = serveRpc(
      nc,
      double,
      async (req) => {
        handlerStarted();
        await handlerMayFinish;
        return { doubled: req.n * 2 };
      },
      { queue: 'test', logger: createLogger('test', 'silent') },
    );
    await nc.flush();

    const reply = callRpc(nc, double, { n: 21 });
    reply.catch(() => undefined); // its outcome is asserted below
    await started;
    let drained = false;
    const draining = server.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(drained).toBe(false);

    release();
    await draining;
    await expect(reply).resolves.toEqual({ doubled: 42 });
  });
});

describe('serveRpc answers', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: sharedStack().natsUrl });
  });
  afterAll(() => nc.close());

  it('503 for a temporary failure of the infrastructure, 500 for anything else', async () => {
    const subject = `test.errors.${Date.now()}`;
    const failures: Record<string, Error> = {
      network: Object.assign(new Error('connection closed'), { name: 'MongoNetworkError' }),
      selection: Object.assign(new Error('no server'), { name: 'MongoServerSelectionError' }),
      marked: Object.assign(new Error('contended'), { transient: true }),
      bug: new TypeError('x is undefined'),
    };
    const failing = defineRpc(subject, z.object({ kind: z.string() }), z.unknown());
    const server = serveRpc(
      nc,
      failing,
      async (req) => {
        throw failures[req.kind];
      },
      { queue: 'test', logger: createLogger('test', 'silent') },
    );
    await nc.flush();
    const statusOf = (kind: string) =>
      callRpc(nc, failing, { kind }).then(
        () => 200,
        (err: { status?: number }) => err.status,
      );
    expect(await statusOf('network')).toBe(503);
    expect(await statusOf('selection')).toBe(503);
    expect(await statusOf('marked')).toBe(503);
    expect(await statusOf('bug')).toBe(500);
    await server.drain();
  });
});
