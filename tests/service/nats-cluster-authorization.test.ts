import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Streams, Subjects } from '@pix/contracts';
import { connectAs, natsMemberName, startNatsMember } from '@pix/devstack';
import { eventually } from '../support/api';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * A 3-member JetStream cluster, as the chaos test and production run it, with authorization on:
 * every member has the same authorization, the routes between them are not subject to it, and a
 * member restarted after `kill -9` joins again and catches up.
 */
describe('a NATS cluster with authorization', () => {
  let stack: PrivateStack;
  beforeAll(async () => {
    stack = await startPrivateStack({ natsMembers: 3, services: [], mongoUrl: sharedStack().mongoUrl });
  }, 120_000);
  afterAll(() => stack?.stop());

  const memberUrls = () => stack.natsUrl.split(',');

  it('refuses an anonymous client on every member and takes each identity on every member', async () => {
    for (const url of memberUrls()) {
      await expect(connect({ servers: url, timeout: 5000 })).rejects.toThrow('Authorization Violation');
      const nc = await connectAs(url, 'payments', stack.natsCredentials);
      await nc.close();
    }
  });

  it('replicates what one member takes to all three, and a restarted member catches up', async () => {
    const nc = await connectAs(stack.natsUrl, 'provisioner', stack.natsCredentials, { reconnect: true });
    const payments = await connectAs(memberUrls()[2]!, 'payments', stack.natsCredentials);
    try {
      const jsm = await jetstreamManager(nc);
      // The leader and the replicas that are current; none while the stream elects a leader.
      const copies = () =>
        jsm.streams.info(Streams.payments.name).then(
          ({ cluster }) =>
            (cluster?.leader ? 1 : 0) + (cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length,
          () => 0,
        );
      expect(await eventually(copies, (n) => n === 3, 30_000)).toBe(3);
      await jetstream(payments).publish(Subjects.paymentEvent('payment.created', true), '{}', { msgID: 'cluster-1' });

      const { leader } = (await jsm.streams.info(Streams.payments.name)).cluster!;
      const index = stack.ports.natsCluster!.findIndex((_, i) => natsMemberName(i) === leader);
      const killed = stack.processes.find((p) => p.name === leader)!;
      process.kill(killed.pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const restarted = await startNatsMember(stack.dir, stack.ports.natsCluster!, index, false);
      stack.replaceProcess(killed, restarted);

      // Over the routes again, with the stream's messages: every copy current.
      expect(await eventually(copies, (n) => n === 3, 60_000, 500)).toBe(3);
      expect((await jsm.streams.info(Streams.payments.name)).state.messages).toBe(1);
    } finally {
      await payments.close();
      await nc.close();
    }
  }, 120_000);
});
