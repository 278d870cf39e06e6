import { createPrivateKey, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { jetstream, jetstreamManager, type ConsumerInfo } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { Consumers, Streams, Subjects, type PaymentEvent } from '@pix/contracts';
import { connectAs, type LocalSecrets } from '@pix/devstack';
import { FactSigner, provisionJetStream } from '@pix/messaging';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { statusChangedEvents } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { jetStreamAdmin } from '../support/streams';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf } from './helpers';

/**
 * The dispatcher takes only the events of payments with a webhookUrl (`payments.events.hook.*`),
 * while the PAYMENTS stream and its feed still carry every event; its durable consumer is moved to
 * the new filters in place, and an event published under the old subjects before the move is
 * delivered once after it (docs/decisions/webhook-subjects.md).
 */
describe('payment event subjects and the dispatcher', () => {
  const receiver = new WebhookReceiver();
  const open: NatsConnection[] = [];
  let stack: PrivateStack;
  let store: StoreCredentials;
  let url: string;

  const as = async (identity: 'payments' | 'gateway' | 'provisioner'): Promise<NatsConnection> => {
    const nc =
      identity === 'provisioner'
        ? await jetStreamAdmin(stack)
        : await connectAs(stack.natsUrl, identity, stack.natsCredentials);
    open.push(nc);
    return nc;
  };
  const dispatcherConsumer = async (): Promise<ConsumerInfo> =>
    (await jetstreamManager(await as('provisioner'))).consumers.info(
      Consumers.dispatcherPayments.stream,
      Consumers.dispatcherPayments.durable,
    );

  beforeAll(async () => {
    url = await receiver.start();
    stack = await startPrivateStack();
    store = await createStore(stack, 'Subjects store');
  });
  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close()));
    await receiver.stop();
    await stack?.stop();
  });

  it('delivers once an event published under the old subjects before the consumer moved', async () => {
    const [dispatcher] = stack.processesOf('webhook-dispatcher');
    await stack.stopProcess(dispatcher!);
    const jsm = await jetstreamManager(await as('provisioner'));
    const { stream, durable } = Consumers.dispatcherPayments;
    // The consumer as the platform provisioned it before: every event, one filter.
    await jsm.consumers.update(stream, durable, { filter_subject: 'payments.events.>', filter_subjects: undefined });

    // An event as payments published it then, signed with its key, waiting for the dispatcher.
    const secrets = JSON.parse(fs.readFileSync(stack.secretsFile, 'utf8')) as LocalSecrets;
    const signer = new FactSigner(
      createPrivateKey({
        key: Buffer.from(secrets.factKeys.payments.privateKey, 'base64'),
        format: 'der',
        type: 'pkcs8',
      }),
    );
    const paymentId = randomUUID();
    const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
    const at = new Date().toISOString();
    const event: PaymentEvent = {
      eventId,
      occurredAt: at,
      sequence: 1,
      paymentId,
      storeId: store.storeId,
      webhookUrl: url,
      body: {
        event: 'payment.created',
        id: paymentId,
        status: 'pending',
        amount: 10,
        storeId: store.storeId,
        livemode: false,
        createdAt: at,
        webhookUrl: url,
        observation: null,
        email: null,
        qrCodeUrl: null,
        qrCopyPaste: null,
      },
    };
    const oldSubject = 'payments.events.created';
    const bytes = new TextEncoder().encode(JSON.stringify(event));
    const hdrs = signer.sign(headers(), oldSubject, eventId, bytes);
    await jetstream(await as('payments')).publish(oldSubject, bytes, { msgID: eventId, headers: hdrs });
    expect((await dispatcherConsumer()).num_pending).toBe(1);

    // The upgrade: provisioning moves the consumer to the new filters, keeping its position.
    await provisionJetStream(await as('provisioner'));
    const moved = await dispatcherConsumer();
    expect([moved.config.filter_subject ?? null, moved.config.filter_subjects]).toEqual([
      null,
      [...Consumers.dispatcherPayments.filterSubjects],
    ]);
    expect(moved.num_pending).toBe(1);

    await stack.startService('webhook-dispatcher', {}, stack.ports.ops['webhook-dispatcher']);
    await eventually(
      () => deliveriesOf(stack, paymentId),
      (d) => d[0]?.status === 'delivered',
    );
    await eventually(dispatcherConsumer, (info) => info.num_pending === 0 && info.num_ack_pending === 0);
    expect(receiver.events(paymentId).map((hook) => hook.headers['webhook-id'])).toEqual([eventId]);
  }, 90_000);

  it('takes no event of a payment without a webhookUrl, which the gateway still receives', async () => {
    const feed: PaymentEvent[] = [];
    const subscription = (await as('gateway')).subscribe(Subjects.paymentEventsFeedAll, {
      callback: (err, msg) => {
        if (!err) feed.push(msg.json<PaymentEvent>());
      },
    });
    const before = await dispatcherConsumer();
    const created = await api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
      token: store.token,
      body: { amount: 10 },
    });
    expect(created.status).toBe(200);
    const paymentId = created.body.id;
    await admin(stack, 'sandbox', 'pay', paymentId);
    await statusChangedEvents(stack, paymentId, 1);
    const followed = await eventually(
      async () => feed.filter((event) => event.paymentId === paymentId).map((event) => event.body.event),
      (events) => events.length === 2,
    );
    subscription.unsubscribe();
    expect(followed).toEqual(['payment.created', 'payment.status_changed']);

    // Stored on PAYMENTS under the subjects nobody is notified of, and never handed to the dispatcher.
    const { state } = await (
      await jetstreamManager(await as('provisioner'))
    ).streams.info(Streams.payments.name, {
      subjects_filter: 'payments.events.nohook.>',
    });
    expect(Object.keys(state.subjects ?? {}).sort()).toEqual([
      Subjects.paymentEvent('payment.created', false),
      Subjects.paymentEvent('payment.status_changed', false),
    ]);
    const after = await dispatcherConsumer();
    expect([after.delivered.consumer_seq, after.num_pending, after.num_ack_pending]).toEqual([
      before.delivered.consumer_seq,
      0,
      0,
    ]);
    expect(await deliveriesOf(stack, paymentId)).toEqual([]);
  });

  it('hands the dispatcher both events of a payment with a webhookUrl', async () => {
    const before = await dispatcherConsumer();
    const paymentId = await createPayment(stack, store.token, url);
    await admin(stack, 'sandbox', 'pay', paymentId);
    const hooks = await eventually(
      async () => receiver.events(paymentId),
      (received) => received.length === 2,
    );
    expect(hooks.map((hook) => hook.json.event)).toEqual(['payment.created', 'payment.status_changed']);
    const after = await eventually(dispatcherConsumer, (info) => info.num_ack_pending === 0);
    expect(after.delivered.consumer_seq - before.delivered.consumer_seq).toBe(2);
  });
});
