import fs from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { freePort, removeStackDir, RUN_DIR, startNats, stopProcesses, type Started } from '@pix/devstack';
import { connectNats } from '@pix/messaging';
import { createLogger } from '@pix/observability';
import { eventually } from '../support/api';

/**
 * A service's NATS connection gathers what it sends in one turn of the event loop into one socket
 * write (libs/messaging/src/corked-transport.ts), on a NATS of this test's own without
 * authorization: the messages arrive all the same, in order, and a close loses none.
 */
let natsUrl: string;
let nats: Started;
let dir: string;
let listener: NatsConnection;
const logger = createLogger('test', 'silent');

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(RUN_DIR, 'test-'));
  const port = await freePort();
  nats = await startNats(dir, port, false, { open: true });
  natsUrl = `nats://127.0.0.1:${port}`;
  listener = await connect({ servers: natsUrl });
});
afterAll(async () => {
  await listener.close();
  await stopProcesses([nats]);
  removeStackDir(dir);
});

/** What `subject` carries from now on, as the listener receives it. */
async function listen(subject: string): Promise<string[]> {
  const received: string[] = [];
  listener.subscribe(subject, {
    callback: (_err, msg) => {
      received.push(msg.string());
    },
  });
  await listener.flush();
  return received;
}

/** The socket writes of a connection from now on (a corked socket's gathered chunks are one `writev`). */
function countWrites(nc: NatsConnection): { count: number } {
  const socket = (nc as unknown as { protocol: { transport: { socket: Socket } } }).protocol.transport.socket;
  const writes = { count: 0 };
  const internals = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  for (const method of ['_write', '_writev'] as const) {
    const original = internals[method].bind(socket);
    internals[method] = (...args: unknown[]) => {
      writes.count++;
      return original(...args);
    };
  }
  return writes;
}

it('sends what ten callbacks of one turn publish in one socket write, in order', async () => {
  const nc = await connectNats(natsUrl, 'payments', logger);
  try {
    const received = await listen('corked.turn');
    const writes = countWrites(nc);
    // Ten timers due together run in one timers phase, each followed by its own microtasks: the
    // client flushes after each, which without the cork is ten writes.
    for (let i = 0; i < 10; i++) setTimeout(() => nc.publish('corked.turn', String(i)), 0);
    await eventually(
      async () => received.length,
      (n) => n === 10,
    );
    expect(received).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(writes.count).toBeLessThanOrEqual(2);
  } finally {
    await nc.close();
  }
});

it('loses nothing sent just before a close', async () => {
  const received = await listen('corked.close');
  const nc = await connectNats(natsUrl, 'payments', logger);
  nc.publish('corked.close', 'last words');
  await nc.close();
  await eventually(
    async () => received,
    (r) => r.length === 1,
  );
  expect(received).toEqual(['last words']);
});
