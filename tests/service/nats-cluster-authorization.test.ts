import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Consumers, leaderElectedAdvisory, Streams, Subjects } from '@pix/contracts';
import { connectAs, natsMemberName, startNatsMember } from '@pix/devstack';
import { startConsumer } from '@pix/messaging';
import { createLogger } from '@pix/observability';
import { eventually } from '../support/api';
import { sharedStack, startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * A 3-member JetStream cluster, as the chaos test and production run it, with authorization on:
 * every member has the same authorization, the routes between them are not subject to it, a
 * member restarted after `kill -9` joins again and catches up, and a consumer whose leader was
 * killed receives again as soon as it has a new one.
 */
describe('a NATS cluster with authorization', () => {
  let stack: PrivateStack;
  beforeAll(async () => {
    stack = await startPrivateStack({ natsMembers: 3, services: [], mongoUrl: sharedStack().mongoUrl });
  }, 120_000);
  afterAll(() => stack?.stop());

  const memberUrls = () => stack.natsUrl.split(',');
  // The stream's leader and the replicas that are current; none while the stream elects a leader.
  const copies = (jsm: JetStreamManager) => () =>
    jsm.streams.info(Streams.payments.name).then(
      ({ cluster }) =>
        (cluster?.leader ? 1 : 0) + (cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length,
      () => 0,
    );
  // No account-info request on connect: right after a member's restart the cluster may still be
  // electing its meta leader, and the calls below retry until it answers.
  const managerOf = (nc: NatsConnection) => jetstreamManager(nc, { checkAPI: false });

  it('refuses an anonymous client on every member and takes each identity on every member', async () => {
    for (const url of memberUrls()) {
      await expect(connect({ servers: url, timeout: 5000 })).rejects.toThrow('Authorization Violation');
      const nc = await connectAs(url, 'payments', stack.natsCredentials);
      await nc.close();
    }
  });

  // Runs first: the members are all up, and each restart below comes after it.
  it('a consumer whose leader is killed receives again as soon as it has a new leader', async () => {
    const consumer = Consumers.dispatcherPayments;
    const admin = await connectAs(stack.natsUrl, 'provisioner', stack.natsCredentials, { reconnect: true });
    const jsm = await managerOf(admin);
    const leaderOf = () =>
      jsm.consumers.info(consumer.stream, consumer.durable).then(
        (info) => info.cluster?.leader ?? '',
        () => '',
      );
    const killedLeader = await eventually(leaderOf, (leader) => leader !== '', 30_000);
    const others = memberUrls().filter((_, i) => natsMemberName(i) !== killedLeader);
    // The reader and the publisher are on members that stay up: only the consumer's leader goes.
    const reader = await connectAs(others.join(','), 'webhook-dispatcher', stack.natsCredentials, { reconnect: true });
    const writer = await connectAs(others.join(','), 'payments', stack.natsCredentials, { reconnect: true });
    const received: string[] = [];
    const running = await startConsumer(reader, consumer, { logger: createLogger('test', 'silent') }, (msg) => {
      received.push(msg.string());
      return Promise.resolve({ ack: true });
    });
    const elections = reader.subscribe(leaderElectedAdvisory(consumer), { max: 1 });
    const publish = (body: string) =>
      jetstream(writer).publish(Subjects.paymentEvent('payment.created', true), body, { msgID: body });
    try {
      await publish('before');
      await eventually(
        async () => received,
        (r) => r.includes('before'),
        10_000,
      );

      const index = stack.ports.natsCluster!.findIndex((_, i) => natsMemberName(i) === killedLeader);
      const killed = stack.processes.find((p) => p.name === killedLeader)!;
      process.kill(killed.pid, 'SIGKILL');
      for await (const elected of elections) expect(elected.subject).toContain(consumer.durable);
      expect(await leaderOf()).not.toBe(killedLeader);
      // Published once the stream takes it again (its own leader may have been the killed member too).
      await eventually(
        () =>
          publish('after').then(
            () => true,
            () => false,
          ),
        (ok) => ok,
        30_000,
        200,
      );
      const storedAt = Date.now();
      // The pull the reader had waited on the killed leader. Without pulling again on the election,
      // the client noticed only after two missed heartbeats: 4.8-10 s after it, measured.
      await eventually(
        async () => received,
        (r) => r.includes('after'),
        20_000,
        50,
      );
      expect(Date.now() - storedAt).toBeLessThan(2000);

      const restarted = await startNatsMember(stack.dir, stack.ports.natsCluster!, index, false);
      stack.replaceProcess(killed, restarted);
      // The next test starts from a whole cluster.
      expect(await eventually(copies(jsm), (n) => n === 3, 60_000, 500)).toBe(3);
    } finally {
      await running.stop();
      await reader.close();
      await writer.close();
      await admin.close();
    }
  }, 120_000);

  it('replicates what one member takes to all three, and a restarted member catches up', async () => {
    const nc = await connectAs(stack.natsUrl, 'provisioner', stack.natsCredentials, { reconnect: true });
    const payments = await connectAs(memberUrls()[2]!, 'payments', stack.natsCredentials);
    try {
      const jsm = await managerOf(nc);
      expect(await eventually(copies(jsm), (n) => n === 3, 30_000)).toBe(3);
      const stored = (await jsm.streams.info(Streams.payments.name)).state.messages;
      await jetstream(payments).publish(Subjects.paymentEvent('payment.created', true), '{}', { msgID: 'cluster-1' });

      const { leader } = (await jsm.streams.info(Streams.payments.name)).cluster!;
      const index = stack.ports.natsCluster!.findIndex((_, i) => natsMemberName(i) === leader);
      const killed = stack.processes.find((p) => p.name === leader)!;
      process.kill(killed.pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const restarted = await startNatsMember(stack.dir, stack.ports.natsCluster!, index, false);
      stack.replaceProcess(killed, restarted);

      // Over the routes again, with the stream's messages: every copy current.
      expect(await eventually(copies(jsm), (n) => n === 3, 60_000, 500)).toBe(3);
      expect((await jsm.streams.info(Streams.payments.name)).state.messages).toBe(stored + 1);
    } finally {
      await payments.close();
      await nc.close();
    }
  }, 120_000);
});
