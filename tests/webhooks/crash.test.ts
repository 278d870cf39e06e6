import { createStore } from '../support/admin';
import { eventually } from '../support/api';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, deliveriesOf } from './helpers';

/**
 * kill -9 of the dispatcher in the middle of attempts: their messages were never acked, so
 * JetStream brings them back after the consumer's ack_wait (WEBHOOK_TIMEOUT + 15 s); the restarted
 * dispatcher finds each attempt claimed without a result, waits for the claim to lapse, and makes
 * it again under the next number. Every event is delivered, under its one webhook-id.
 */
describe('webhook delivery across a dispatcher crash', () => {
  const receiver = new WebhookReceiver();
  let stack: PrivateStack;
  let url: string;

  beforeAll(async () => {
    url = await receiver.start();
    stack = await startPrivateStack({ env: { WEBHOOK_TIMEOUT: '3s' } });
  });
  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('delivers every event whose attempt was in flight when the dispatcher was killed', async () => {
    // The merchant holds every request until the dispatcher is gone.
    let release: (status: number) => void = () => undefined;
    const held = new Promise<number>((resolve) => (release = resolve));
    receiver.respond = () => held;
    const store = await createStore(stack, 'Crash store');
    const ids = await Promise.all(Array.from({ length: 3 }, () => createPayment(stack, store.token, url)));
    await eventually(
      async () => receiver.received.length,
      (n) => n === ids.length,
    );

    const [dispatcher] = stack.processesOf('webhook-dispatcher');
    await stack.stopProcess(dispatcher!, 'SIGKILL');
    release(200);
    receiver.respond = () => 200;
    await stack.startService('webhook-dispatcher', {}, stack.ports.ops['webhook-dispatcher']);

    for (const id of ids) {
      const [delivery] = await eventually(
        () => deliveriesOf(stack, id),
        (d) => d[0]?.status === 'delivered',
        60_000,
        500,
      );
      // The first attempt's claim has no result (its replica died); the second made it.
      expect(delivery?.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
        [1, null],
        [2, 'success'],
      ]);
      expect(new Set(receiver.events(id).map((h) => h.headers['webhook-id']))).toEqual(new Set([delivery?.eventId]));
    }
  }, 90_000);
});
