import { PermissionViolationError, type NatsConnection } from '@nats-io/transport-node';
import { PaymentsRpc } from '@pix/contracts';
import { connectAs } from '@pix/devstack';
import { connectNats, serveRpc, type RpcServer } from '@pix/messaging';
import { createRegistry } from '@pix/observability';
import { eventually } from '../support/api';
import { capturedLog } from '../support/captured-log';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * A service may answer a request on its reply subject only over the connection the request came
 * in on: NATS grants that permission per connection (`allow_responses`), and a service import's
 * reply subject (`_R_.…`) lives on the server that took the request. An answer to a request taken
 * before the service's connection was replaced (a NATS member restarted, a rolling update) is
 * refused: a permissions violation, which pages an SRE (PixNatsPermissionViolation) for nothing.
 * The RPC server does not send it; the caller, which stopped hearing, asks again.
 */
describe('an answer to a request taken before NATS reconnected', () => {
  let stack: PrivateStack;
  const open: NatsConnection[] = [];
  const servers: RpcServer[] = [];
  const { logger, lines } = capturedLog('warn');
  const request = JSON.stringify({ storeId: 'store', id: 'payment' });

  beforeAll(async () => {
    // NATS and the database alone: no service answers here but the test's own.
    stack = await startPrivateStack({ services: [], pspSimulator: false });
  });
  const waiting: (() => void)[] = [];
  // Each test's server gone before the next, which would otherwise share its queue group.
  afterEach(async () => {
    for (const release of waiting.splice(0)) release();
    await Promise.all(servers.splice(0).map((s) => s.drain()));
    await Promise.all(open.splice(0).map((nc) => nc.close()));
  });
  afterAll(() => stack?.stop());

  /** payments serving payments.get as the service connects, answering when the test says; what NATS refused it. */
  async function servingPayments() {
    const nc = await connectNats(stack.natsUrl, 'payments', logger, { seedFile: stack.natsCredentials?.payments });
    open.push(nc);
    const refused: string[] = [];
    let reconnects = 0;
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'error' && status.error instanceof PermissionViolationError)
          refused.push(status.error.subject);
        if (status.type === 'reconnect') reconnects++;
      }
    })();
    const handler = () => new Promise<never>((resolve) => waiting.push(() => resolve({ id: 'payment' } as never)));
    servers.push(serveRpc(nc, PaymentsRpc.get, handler, { queue: 'payments', logger }));
    const gateway = await connectAs(stack.natsUrl, 'gateway', stack.natsCredentials);
    open.push(gateway);
    const ask = () => gateway.request(PaymentsRpc.get.subject, request, { timeout: 4000 });
    const taken = () =>
      eventually(
        async () => waiting.length,
        (n) => n > 0,
      );
    return { nc, refused, reconnects: () => reconnects, waiting, ask, taken };
  }

  it('goes when the connection is the one the request came in on', async () => {
    const payments = await servingPayments();
    const answer = payments.ask();
    await payments.taken();
    payments.waiting.shift()!();
    expect((await answer).json()).toMatchObject({ ok: true, data: { id: 'payment' } });
    expect(payments.refused).toEqual([]);
  });

  it('is not sent once the connection was replaced, so NATS refuses nothing', async () => {
    const registry = createRegistry('payments');
    const payments = await servingPayments();
    const answer = payments.ask();
    await payments.taken();
    await payments.nc.reconnect();
    await eventually(
      async () => payments.reconnects(),
      (n) => n === 1,
    );
    payments.waiting.shift()!();
    // The caller hears nothing, and asks again: that request is answered.
    await expect(answer).rejects.toThrow();
    const again = payments.ask();
    await payments.taken();
    payments.waiting.shift()!();
    expect((await again).json()).toMatchObject({ ok: true });
    expect(payments.refused).toEqual([]);
    // Said and counted, as what it is: no violation.
    expect(lines.join('')).toContain('an answer not sent: NATS reconnected since its request was taken');
    expect(await registry.getSingleMetricAsString('nats_request_answers_dropped_total')).toMatch(
      /nats_request_answers_dropped_total\{subject="payments\.get"[^}]*\} 1/,
    );
    expect(await registry.getSingleMetricAsString('nats_permission_violations_total')).not.toMatch(/\} [1-9]/);
  });
});
