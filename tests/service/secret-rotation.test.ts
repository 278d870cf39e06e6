import mongoose from 'mongoose';
import { admin, createStore as createStoreViaAdmin } from '../support/admin';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { GatewayStorage, SECRET_ROTATION_OVERLAP_MS } from '../../services/gateway/src/storage';
import { createPayment, useOwnDatabase, verify } from '../webhooks/helpers';
import { sealingKeyText, testSealer } from '../support/sealer';

/** Which secrets sign deliveries around a rotation, against the real FerretDB (a database of its own). */
describe('webhook secret rotation', () => {
  useOwnDatabase('secret_rotation_test');
  const { stores } = new GatewayStorage(testSealer());

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
 * Secrets at rest: sealed under SECRETS_KEYS' first key, read after the key is rotated, and sealed
 * again by a re-seal; records from before sealing (in clear) are still read, and sealed by the
 * store's next rotation or by the re-seal.
 */
describe('webhook secrets sealed at rest', () => {
  useOwnDatabase('secret_sealing_test');
  const oldKey = sealingKeyText('old');
  const newKey = sealingKeyText('new');
  const before = new GatewayStorage(testSealer(oldKey));
  const after = new GatewayStorage(testSealer(`${newKey},${oldKey}`));
  const raw = () =>
    mongoose.connection.db!.collection<{ _id: string; webhookSecrets: Record<string, unknown>[] }>('stores');
  const kidsOf = async (storeId: string) =>
    ((await raw().findOne({ _id: storeId }))?.webhookSecrets ?? []).map((s) =>
      typeof s.sealed === 'string' ? s.sealed.split('.')[1] : 'clear',
    );

  it('never stores a secret in clear, and opens it only with its store as context', async () => {
    const { storeId, webhookSecret } = await before.stores.create('Sealed');
    const stored = JSON.stringify(await raw().findOne({ _id: storeId }));
    expect(stored).not.toContain(webhookSecret);
    expect(stored).not.toContain(webhookSecret.slice('whsec_'.length));
    expect(await kidsOf(storeId)).toEqual(['old']);
    expect(await before.stores.webhookSecrets(storeId)).toEqual([webhookSecret]);
  });

  it('reads what the old key sealed after the key rotation, and the re-seal moves it to the new key', async () => {
    const { storeId, webhookSecret } = await before.stores.create('Rotated key');
    expect(await after.stores.webhookSecrets(storeId)).toEqual([webhookSecret]);
    const rotated = await after.stores.rotateWebhookSecret(storeId);
    expect(await kidsOf(storeId)).toEqual(['new', 'new']);
    expect(await after.stores.webhookSecrets(storeId)).toEqual([rotated, webhookSecret]);

    const untouched = await before.stores.create('Untouched until the re-seal');
    const first = await after.stores.resealWebhookSecrets();
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    expect(await kidsOf(untouched.storeId)).toEqual(['new']);
    expect(await after.stores.webhookSecrets(untouched.storeId)).toEqual([untouched.webhookSecret]);
    // Everything is under the new key: the old one can go, and a second re-seal changes nothing.
    const onlyNew = new GatewayStorage(testSealer(newKey));
    expect(await onlyNew.stores.webhookSecrets(untouched.storeId)).toEqual([untouched.webhookSecret]);
    expect((await onlyNew.stores.resealWebhookSecrets()).resealed).toBe(0);
  });

  it('reads a record written in clear before sealing, and seals it on the next write or the re-seal', async () => {
    const now = new Date();
    const legacy = (id: string, secret: string) => ({
      _id: id,
      name: 'Legacy',
      active: true,
      webhookSecrets: [{ secret, createdAt: now, expiresAt: null }],
      createdAt: now,
    });
    await raw().insertMany([legacy('legacy-rotated', 'whsec_legacyA'), legacy('legacy-resealed', 'whsec_legacyB')]);
    expect(await after.stores.webhookSecrets('legacy-rotated')).toEqual(['whsec_legacyA']);

    const rotated = await after.stores.rotateWebhookSecret('legacy-rotated');
    expect(await kidsOf('legacy-rotated')).toEqual(['new', 'new']);
    expect(await after.stores.webhookSecrets('legacy-rotated')).toEqual([rotated, 'whsec_legacyA']);

    await after.stores.resealWebhookSecrets();
    expect(await kidsOf('legacy-resealed')).toEqual(['new']);
    expect(await after.stores.webhookSecrets('legacy-resealed')).toEqual(['whsec_legacyB']);
    expect(JSON.stringify(await raw().find().toArray())).not.toMatch(/whsec_legacy/);
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
