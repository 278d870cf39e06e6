import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@pix/observability';
import { z } from 'zod';
import { sharedStack } from '../../../tests/support/stack';
import { withDeadline } from './headers';
import { callerGone, callRpc, RpcUnavailable, serveRpc } from './rpc';

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
    const server = serveRpc(
      nc,
      { subject, queue: 'test', schema: z.object({ n: z.number() }), logger: createLogger('test', 'silent') },
      async (req) => {
        handlerStarted();
        await handlerMayFinish;
        return { doubled: req.n * 2 };
      },
    );
    await nc.flush();

    const reply = callRpc(nc, subject, { n: 21 }, z.object({ doubled: z.number() }));
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
    const server = serveRpc(
      nc,
      { subject, queue: 'test', schema: z.object({ kind: z.string() }), logger: createLogger('test', 'silent') },
      async (req) => {
        throw failures[req.kind];
      },
    );
    await nc.flush();
    const statusOf = (kind: string) =>
      callRpc(nc, subject, { kind }, z.unknown()).then(
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

describe('serveRpc and the caller deadline', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: sharedStack().natsUrl });
  });
  afterAll(() => nc.close());

  const options = (subject: string) => ({
    subject,
    queue: 'test',
    schema: z.object({ n: z.number() }),
    logger: createLogger('test', 'silent'),
  });

  it('drops a request whose caller had stopped waiting before it was taken up', async () => {
    const subject = `test.expired.${Date.now()}`;
    let calls = 0;
    const server = serveRpc(nc, options(subject), async (req) => {
      calls++;
      return req;
    });
    await nc.flush();
    // What a request looks like when it waited in the server's backlog past its deadline.
    const late = nc.request(subject, JSON.stringify({ n: 1 }), { timeout: 300, headers: withDeadline(headers(), -1) });
    await expect(late).rejects.toThrow();
    const onTime = callRpc(nc, subject, { n: 2 }, z.object({ n: z.number() }));
    await expect(onTime).resolves.toEqual({ n: 2 });
    expect(calls).toBe(1);
    await server.drain();
  });

  it('tells the handler when its caller gives up, so that the work it started stops', async () => {
    const subject = `test.gone.${Date.now()}`;
    let aborted: boolean | undefined;
    const server = serveRpc(nc, options(subject), async (req, msg) => {
      const signal = callerGone(msg);
      await new Promise((resolve) => signal?.addEventListener('abort', resolve));
      aborted = signal?.aborted;
      return req;
    });
    await nc.flush();
    await expect(callRpc(nc, subject, { n: 3 }, z.object({ n: z.number() }), 300)).rejects.toBeInstanceOf(
      RpcUnavailable,
    );
    await server.drain();
    expect(aborted).toBe(true);
  });
});
