import fs from 'node:fs';
import path from 'node:path';
import mongoose from 'mongoose';
import type { Sealer } from '@pix/runtime';
import { admin, createStore as createStoreViaAdmin } from '../support/admin';
import { eventually } from '../support/api';
import { withDb } from '../support/db';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { GatewayStorage, SECRET_ROTATION_OVERLAP_MS, type Stores } from '../../services/gateway/src/storage';
import { createPayment, metric, useOwnDatabase, verify } from '../webhooks/helpers';
import { sealedAsV1, sealingKeyText, testSealer } from '../support/sealer';

/** The secrets that sign a store's deliveries (those that open). */
async function secretsOf(stores: Stores, storeId: string, now?: Date): Promise<string[]> {
  return (await stores.webhookSecrets(storeId, false, now)).secrets;
}

/** What the gateway binds a store's sealed secret to (its record and its expiry), for values a test seals itself. */
const bindingOf = (storeId: string, expiresAt: Date | null) => ({
  context: `stores/${storeId}/webhookSecrets`,
  expiresAt,
});

type RawStore = { _id: string; webhookSecrets: { sealed?: string; secret?: string; expiresAt: Date | null }[] };

/** Which secrets sign deliveries around a rotation, against the real FerretDB (a database of its own). */
describe('webhook secret rotation', () => {
  useOwnDatabase('secret_rotation_test');
  const { stores } = new GatewayStorage(testSealer());

  it('signs with the old secret too for 24 hours, then with the new one only', async () => {
    const { storeId, webhookSecret: first } = await stores.create('Rotation');
    const rotatedAt = new Date();
    const { webhookSecret: second } = await stores.rotateWebhookSecret(storeId, false, rotatedAt);
    const at = (ms: number) => new Date(rotatedAt.getTime() + ms);

    expect(await secretsOf(stores, storeId, at(0))).toEqual([second, first]);
    expect(await secretsOf(stores, storeId, at(SECRET_ROTATION_OVERLAP_MS - 1000))).toEqual([second, first]);
    expect(await secretsOf(stores, storeId, at(SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([second]);
  });

  it('keeps each replaced secret its own 24 hours across several rotations', async () => {
    const { storeId, webhookSecret: first } = await stores.create('Rotation twice');
    const t0 = new Date();
    const { webhookSecret: second } = await stores.rotateWebhookSecret(storeId, false, t0);
    const t1 = new Date(t0.getTime() + 12 * 3_600_000);
    const { webhookSecret: third } = await stores.rotateWebhookSecret(storeId, false, t1);

    expect(await secretsOf(stores, storeId, t1)).toEqual([third, second, first]);
    // The first expires 24 h after the first rotation, the second 24 h after the second.
    expect(await secretsOf(stores, storeId, new Date(t0.getTime() + SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([
      third,
      second,
    ]);
    expect(await secretsOf(stores, storeId, new Date(t1.getTime() + SECRET_ROTATION_OVERLAP_MS + 1000))).toEqual([
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
  const formatsOf = async (storeId: string) =>
    ((await raw().findOne({ _id: storeId }))?.webhookSecrets ?? []).map((s) =>
      typeof s.sealed === 'string' ? s.sealed.split('.').slice(0, 2).join('.') : 'clear',
    );

  it('never stores a secret in clear, and opens it only with its store as context', async () => {
    const { storeId, webhookSecret } = await before.stores.create('Sealed');
    const stored = JSON.stringify(await raw().findOne({ _id: storeId }));
    expect(stored).not.toContain(webhookSecret);
    expect(stored).not.toContain(webhookSecret.slice('whsec_'.length));
    expect(await kidsOf(storeId)).toEqual(['old']);
    expect(await secretsOf(before.stores, storeId)).toEqual([webhookSecret]);
  });

  it('reads what the old key sealed after the key rotation, and the re-seal moves it to the new key', async () => {
    const { storeId, webhookSecret } = await before.stores.create('Rotated key');
    expect(await secretsOf(after.stores, storeId)).toEqual([webhookSecret]);
    // Read under the new key first, the secret is sealed again under it on that read.
    expect(await kidsOf(storeId)).toEqual(['new']);
    const { webhookSecret: rotated } = await after.stores.rotateWebhookSecret(storeId, false);
    expect(await kidsOf(storeId)).toEqual(['new', 'new']);
    expect(await secretsOf(after.stores, storeId)).toEqual([rotated, webhookSecret]);

    const untouched = await before.stores.create('Untouched until the re-seal');
    const first = await after.stores.resealWebhookSecrets();
    expect(first.resealed).toBeGreaterThanOrEqual(1);
    expect(await kidsOf(untouched.storeId)).toEqual(['new']);
    expect(await secretsOf(after.stores, untouched.storeId)).toEqual([untouched.webhookSecret]);
    // Everything is under the new key: the old one can go, and a second re-seal changes nothing.
    const onlyNew = new GatewayStorage(testSealer(newKey));
    expect(await secretsOf(onlyNew.stores, untouched.storeId)).toEqual([untouched.webhookSecret]);
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
    expect(await secretsOf(after.stores, 'legacy-rotated')).toEqual(['whsec_legacyA']);

    const { webhookSecret: rotated } = await after.stores.rotateWebhookSecret('legacy-rotated', false);
    expect(await kidsOf('legacy-rotated')).toEqual(['new', 'new']);
    expect(await secretsOf(after.stores, 'legacy-rotated')).toEqual([rotated, 'whsec_legacyA']);

    await after.stores.resealWebhookSecrets();
    expect(await kidsOf('legacy-resealed')).toEqual(['new']);
    expect(await secretsOf(after.stores, 'legacy-resealed')).toEqual(['whsec_legacyB']);
    expect(JSON.stringify(await raw().find().toArray())).not.toMatch(/whsec_legacy/);
  });

  it('seals a clear value on its first read, before anything else writes the store', async () => {
    const now = new Date();
    await raw().insertOne({
      _id: 'legacy-read',
      name: 'Legacy',
      active: true,
      webhookSecrets: [{ secret: 'whsec_legacyRead', createdAt: now, expiresAt: null }],
      createdAt: now,
    } as never);
    expect(await secretsOf(after.stores, 'legacy-read')).toEqual(['whsec_legacyRead']);
    expect(await formatsOf('legacy-read')).toEqual(['v2.new']);
    expect(JSON.stringify(await raw().findOne({ _id: 'legacy-read' }))).not.toContain('whsec_legacyRead');
    expect(await secretsOf(after.stores, 'legacy-read')).toEqual(['whsec_legacyRead']);
  });

  it('opens a v1 value (bound to its store only), and reseals it as v2, bound to its expiry too, on its first read', async () => {
    const { storeId, webhookSecret } = await after.stores.create('Sealed the v1 way');
    const expiresAt = new Date(Date.now() + 3_600_000);
    const v1 = sealedAsV1(oldKey, 'whsec_v1old', bindingOf(storeId, null).context);
    await raw().updateOne({ _id: storeId }, {
      $push: { webhookSecrets: { sealed: v1, createdAt: new Date(), expiresAt } },
    } as never);
    expect(await formatsOf(storeId)).toEqual(['v2.new', 'v1.old']);
    expect(await secretsOf(after.stores, storeId)).toEqual([webhookSecret, 'whsec_v1old']);
    expect(await formatsOf(storeId)).toEqual(['v2.new', 'v2.new']);
    expect(await secretsOf(after.stores, storeId)).toEqual([webhookSecret, 'whsec_v1old']);
    // Now bound to its expiry: the record edited to keep the replaced secret for ever, it opens no more.
    await raw().updateOne({ _id: storeId }, { $set: { 'webhookSecrets.1.expiresAt': null } });
    expect(await after.stores.webhookSecrets(storeId, false)).toEqual({
      secrets: [webhookSecret],
      unreadable: [{ kid: 'new', reason: 'does_not_open' }],
    });
  });
});

/**
 * A secret sealed under a key SECRETS_KEYS no longer holds (removed before a re-seal reached it):
 * reads name it and sign with what still opens; the check and the re-seal list its store and go
 * on; a rotation drops it and issues a new secret.
 */
describe('webhook secrets under a retired key', () => {
  useOwnDatabase('secret_retired_key_test');
  const goneKey = sealingKeyText('gone');
  const keptKey = sealingKeyText('kept');
  const gone = testSealer(goneKey);
  const storage = new GatewayStorage(testSealer(keptKey));
  const raw = () => mongoose.connection.db!.collection<RawStore>('stores');
  const sealedUnder = (sealer: Sealer, storeId: string, secret: string, expiresAt: Date | null) => ({
    sealed: sealer.seal(secret, bindingOf(storeId, expiresAt)),
    createdAt: new Date(),
    expiresAt,
  });

  it('is named by reads, listed by the check and the re-seal (which go on), and dropped by a rotation', async () => {
    const { stores } = storage;
    // Every secret of `lost` is under the gone key; `partly` has a current secret, and its
    // previous one (still in its 24 hours) under the gone key; `legacy` is in clear.
    const lost = await stores.create('Lost key');
    const partly = await stores.create('Partly lost');
    const overlapEnds = new Date(Date.now() + SECRET_ROTATION_OVERLAP_MS);
    await raw().updateOne(
      { _id: lost.storeId },
      { $set: { webhookSecrets: [sealedUnder(gone, lost.storeId, 'whsec_lost', null)] } },
    );
    await raw().updateOne(
      { _id: partly.storeId },
      { $push: { webhookSecrets: sealedUnder(gone, partly.storeId, 'whsec_partlyOld', overlapEnds) } },
    );
    const now = new Date();
    await raw().insertOne({
      _id: 'legacy-beside-lost',
      webhookSecrets: [{ secret: 'whsec_legacyC', expiresAt: null }],
      name: 'Legacy',
      active: true,
      createdAt: now,
    } as never);
    const before = JSON.stringify(await raw().find().sort({ _id: 1 }).toArray());

    expect(await stores.webhookSecrets(lost.storeId, false)).toEqual({
      secrets: [],
      unreadable: [{ kid: 'gone', reason: 'retired_key' }],
    });
    expect(await stores.webhookSecrets(partly.storeId, false)).toEqual({
      secrets: [partly.webhookSecret],
      unreadable: [{ kid: 'gone', reason: 'retired_key' }],
    });
    // Reading those two wrote nothing: there is nothing to seal again in them.
    expect(JSON.stringify(await raw().find().sort({ _id: 1 }).toArray())).toBe(before);

    const check = await stores.checkWebhookSecrets();
    expect(check).toMatchObject({ stores: 3, unreadableStores: 2, toReseal: 1 });
    expect(check.unreadable).toEqual(
      expect.arrayContaining([
        { storeId: lost.storeId, kids: ['gone'], none: true },
        { storeId: partly.storeId, kids: ['gone'], none: false },
      ]),
    );
    expect(JSON.stringify(await raw().find().sort({ _id: 1 }).toArray())).toBe(before);

    // The re-seal goes on past both, seals the clear one, and ends with the same list.
    const resealed = await stores.resealWebhookSecrets();
    expect(resealed).toMatchObject({ stores: 3, resealed: 1, unreadableStores: 2 });
    expect(resealed.unreadable).toEqual(check.unreadable);
    expect(JSON.stringify(await raw().findOne({ _id: 'legacy-beside-lost' }))).not.toContain('whsec_legacyC');
    expect(await secretsOf(stores, 'legacy-beside-lost')).toEqual(['whsec_legacyC']);

    // A rotation issues a new secret and drops the one that cannot sign.
    const rotated = await stores.rotateWebhookSecret(lost.storeId, false);
    expect(rotated.dropped).toBe(1);
    expect(await stores.webhookSecrets(lost.storeId, false)).toEqual({
      secrets: [rotated.webhookSecret],
      unreadable: [],
    });
    const partlyRotated = await stores.rotateWebhookSecret(partly.storeId, false);
    expect(partlyRotated.dropped).toBe(1);
    expect(await secretsOf(stores, partly.storeId)).toEqual([partlyRotated.webhookSecret, partly.webhookSecret]);
    expect(await stores.checkWebhookSecrets()).toEqual({
      stores: 3,
      unreadableStores: 0,
      unreadable: [],
      toReseal: 0,
    });
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

  it("holds a store's deliveries while no secret of it opens, says so, and delivers them after rotate-secret", async () => {
    const stack = sharedStack();
    const store = await createStoreViaAdmin(stack, 'Secret under a retired key');
    // Its secret as a key SECRETS_KEYS no longer holds sealed it.
    const retired = testSealer(sealingKeyText('retired'));
    await withDb(stack.mongoAdminUrl!, (db) =>
      db.collection<RawStore>('stores').updateOne(
        { _id: store.storeId },
        {
          $set: {
            webhookSecrets: [
              { sealed: retired.seal(store.webhookSecret, bindingOf(store.storeId, null)), expiresAt: null },
            ],
          },
        },
      ),
    );
    const unsignable = () => metric(stack.opsUrls.gateway, 'webhook_secrets_unreadable_total', 'signing="none"');
    const countedBefore = await unsignable();

    const held = await createPayment(stack, store.token, url);
    await eventually(unsignable, (n) => n >= countedBefore + 2, 20_000);
    expect(receiver.events(held)).toEqual([]);
    // One log line for the store, however many reads found it.
    const logged = fs
      .readFileSync(path.join(stack.dir, 'logs', 'gateway.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes(store.storeId) && line.includes('no webhook secret of the store opens'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ storeId: store.storeId, kids: ['retired'], signing: 'none' });

    type Pass = { unreadableStores: number; unreadable: { storeId: string; kids: string[]; none: boolean }[] };
    const listed = { storeId: store.storeId, kids: ['retired'], none: true };
    expect((await admin<Pass>(stack, 'store', 'check-secrets')).unreadable).toContainEqual(listed);
    const resealed = await admin<Pass & { stores: number }>(stack, 'store', 'reseal-secrets');
    expect(resealed.unreadable).toContainEqual(listed);
    expect(resealed.stores).toBeGreaterThan(1);

    const rotated = await admin<{ webhookSecret: string; droppedUnreadable: number }>(
      stack,
      'store',
      'rotate-secret',
      store.storeId,
    );
    expect(rotated.droppedUnreadable).toBe(1);
    // The held delivery goes out at its next look (every 5 s), signed with the new secret alone.
    const [hook] = await eventually(
      async () => receiver.events(held),
      (hooks) => hooks.length >= 1,
      30_000,
    );
    expect(String(hook?.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(hook, rotated.webhookSecret)).toMatchObject({ id: held });
    expect((await admin<Pass>(stack, 'store', 'check-secrets')).unreadable).not.toContainEqual(listed);
  });
});
