import fs from 'node:fs';
import path from 'node:path';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { defineRpc, DomainError, type RpcAccess } from '@pix/contracts';
import { freePort, removeStackDir, RUN_DIR, startNats, stopProcesses, type Started } from '@pix/devstack';
import { createLogger } from '@pix/observability';
import { z } from 'zod';
import { callerGone, callRpc, RpcFailure, RpcUnavailable, serveRpc } from '@pix/messaging';
// Internal to the library: how a request carries its caller's deadline on the wire.
import { withDeadline } from '../../libs/messaging/src/headers';

/**
 * The request/reply library's own behaviour, on a NATS of these tests' own without authorization:
 * who may use their subjects does not come into it (tests/service/nats-permissions.test.ts is about that).
 */
let natsUrl: string;
let nats: Started;
let dir: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const port = await freePort();
  nats = await startNats(dir, port, false, { open: true });
  natsUrl = `nats://127.0.0.1:${port}`;
});
afterAll(async () => {
  await stopProcesses([nats]);
  removeStackDir(dir);
});
const anyone: RpcAccess = { server: 'payments', callers: ['payments'] };
const define = <Req extends z.ZodType, Rep extends z.ZodType>(subject: string, request: Req, reply: Rep) =>
  defineRpc(subject, request, reply, anyone);

describe('serveRpc drain', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
  });
  afterAll(() => nc.close());

  it('resolves only once every request it took is answered', async () => {
    const subject = `test.drain.${Date.now()}`;
    let release!: () => void;
    const handlerMayFinish = new Promise<void>((resolve) => (release = resolve));
    let handlerStarted!: () => void;
    const started = new Promise<void>((resolve) => (handlerStarted = resolve));
    const double = define(subject, z.object({ n: z.number() }), z.object({ doubled: z.number() }));
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
    nc = await connect({ servers: natsUrl });
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
    const failing = define(subject, z.object({ kind: z.string() }), z.unknown());
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

  it('a domain refusal reaches the caller as its code and params; a malformed request as a 400', async () => {
    const refusing = define(`test.refusals.${Date.now()}`, z.object({ id: z.string() }), z.object({}));
    const server = serveRpc(
      nc,
      refusing,
      async (req) => {
        throw new DomainError('transition_not_allowed', { from: 'pending', to: req.id });
      },
      { queue: 'test', logger: createLogger('test', 'silent') },
    );
    await nc.flush();

    const refusal = await callRpc(nc, refusing, { id: 'paid' }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'transition_not_allowed', params: { from: 'pending', to: 'paid' } });

    // Sent around the types, as a caller with another version of the contract would.
    const malformed = await callRpc(nc, refusing, { id: 7 } as unknown as { id: string }).catch((err: unknown) => err);
    expect(malformed).toBeInstanceOf(RpcFailure);
    expect(malformed).toMatchObject({ status: 400 });
    await server.drain();
  });
});

describe('serveRpc and the caller deadline', () => {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
  });
  afterAll(() => nc.close());

  const echo = (subject: string) => define(subject, z.object({ n: z.number() }), z.object({ n: z.number() }));
  const options = { queue: 'test', logger: createLogger('test', 'silent') };

  it('drops a request whose caller had stopped waiting before it was taken up', async () => {
    const definition = echo(`test.expired.${Date.now()}`);
    let calls = 0;
    const server = serveRpc(
      nc,
      definition,
      async (req) => {
        calls++;
        return req;
      },
      options,
    );
    await nc.flush();
    // What a request looks like when it waited in the server's backlog past its deadline.
    const late = nc.request(definition.subject, JSON.stringify({ n: 1 }), {
      timeout: 300,
      headers: withDeadline(headers(), -1),
    });
    await expect(late).rejects.toThrow();
    await expect(callRpc(nc, definition, { n: 2 })).resolves.toEqual({ n: 2 });
    expect(calls).toBe(1);
    await server.drain();
  });

  it('takes no message without a reply subject: an answer landing on its subject is no request', async () => {
    const definition = echo(`test.answer.${Date.now()}`);
    const seen: number[] = [];
    const server = serveRpc(
      nc,
      definition,
      async (req) => {
        seen.push(req.n);
        return req;
      },
      options,
    );
    await nc.flush();
    // What JetStream's or another server's answer asked onto this subject looks like: no reply
    // subject, or a pulled message's acknowledgement subject.
    nc.publish(definition.subject, JSON.stringify({ n: 1 }));
    nc.publish(definition.subject, JSON.stringify({ n: 2 }), { reply: '$JS.ACK.PIX.payments-pix.1.1.1.1.0' });
    await expect(callRpc(nc, definition, { n: 3 })).resolves.toEqual({ n: 3 });
    expect(seen).toEqual([3]);
    await server.drain();
  });

  it('tells the handler when its caller gives up, so that the work it started stops', async () => {
    const definition = echo(`test.gone.${Date.now()}`);
    let aborted: boolean | undefined;
    // The handler answers only once the caller has given up: the signal fires when the caller's
    // timer does, and an answer sent at that moment could still beat it.
    let callerFailed!: () => void;
    const afterCallerFailed = new Promise<void>((resolve) => (callerFailed = resolve));
    const server = serveRpc(
      nc,
      definition,
      async (req, msg) => {
        const signal = callerGone(msg);
        await new Promise((resolve) => signal?.addEventListener('abort', resolve));
        aborted = signal?.aborted;
        await afterCallerFailed;
        return req;
      },
      options,
    );
    await nc.flush();
    await expect(callRpc(nc, definition, { n: 3 }, 300)).rejects.toBeInstanceOf(RpcUnavailable);
    callerFailed();
    await server.drain();
    expect(aborted).toBe(true);
  });
});
