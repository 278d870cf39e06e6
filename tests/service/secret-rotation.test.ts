import { admin, createStore as createStoreViaAdmin } from '../support/admin';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { GatewayStorage, SECRET_ROTATION_OVERLAP_MS } from '../../services/gateway/src/storage';
import { createPayment, useOwnDatabase, verify } from '../webhooks/helpers';

/** Which secrets sign deliveries around a rotation, against the real FerretDB (a database of its own). */
describe('webhook secret rotation', () => {
  useOwnDatabase('secret_rotation_test');
  const { stores } = new GatewayStorage();

  it('signs with the old secret too for 24 hours, then with the new one only', async () => {
    const { storeId, webhookSecret: first } = await stores.create('Rotation');
    const rotatedAt = new Date();
    const second = await stores.rotateWebhookSecret(storeId, rotatedAt);
    const at = (ms: number) => new Date(rotatedAt.getTime() + ms);

    expect(await stores.webhookSecrets(storeId, at(0))).toEqual([second, first]);
    expect(await stores.webhookSecrets(storeId, at(SECRET_ROTATION_OVERLAP_MS - 1000))).toEqual([second, first]);
    expect(await stores.webhookSecrets(storeId, at(SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([second]);
  });

  it('keeps each replaced secret its own 24 hours across several rotations', async () => {
    const { storeId, webhookSecret: first } = await stores.create('Rotation twice');
    const t0 = new Date();
    const second = await stores.rotateWebhookSecret(storeId, t0);
    const t1 = new Date(t0.getTime() + 12 * 3_600_000);
    const third = await stores.rotateWebhookSecret(storeId, t1);

    expect(await stores.webhookSecrets(storeId, t1)).toEqual([third, second, first]);
    // The first expires 24 h after the first rotation, the second 24 h after the second.
    expect(await stores.webhookSecrets(storeId, new Date(t0.getTime() + SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([
      third,
      second,
    ]);
    expect(await stores.webhookSecrets(storeId, new Date(t1.getTime() + SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([
      third,
    ]);
  });
});

/**
 * Through the shared stack: the dispatcher caches a store's secrets after its first delivery, and a
 * rotation still reaches the very next delivery (the gateway's notice drops the cached set).
 */
describe('webhook secret rotation reaching the dispatcher', () => {
  const receiver = new WebhookReceiver();
  let url: string;
  beforeAll(async () => {
    url = await receiver.start();
  });
  afterAll(() => receiver.stop());

  it('signs the first delivery after a rotation with the new secret, the old one still beside it', async () => {
    const stack = sharedStack();
    const store = await createStoreViaAdmin(stack, 'Rotation reaching deliveries');
    const before = await createPayment(stack, store.token, url);
    const [cachedHook] = await eventually(
      async () => receiver.events(before),
      (hooks) => hooks.length === 1,
    );
    expect(String(cachedHook?.headers['webhook-signature']).split(' ')).toHaveLength(1);

    const rotated = await admin<{ webhookSecret: string }>(stack, 'store', 'rotate-secret', store.storeId);
    const after = await createPayment(stack, store.token, url);
    const [hook] = await eventually(
      async () => receiver.events(after),
      (hooks) => hooks.length === 1,
    );
    expect(String(hook?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(hook, rotated.webhookSecret)).toMatchObject({ id: after });
    expect(verify(hook, store.webhookSecret)).toMatchObject({ id: after });
  });
});
