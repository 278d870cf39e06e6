import { BSON, MongoClient } from 'mongodb';
import { Client } from 'pg';
import { readLocalSecrets } from '@pix/devstack';
import { admin, createStore } from '../support/admin';
import { eventually } from '../support/api';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';
import { createPayment, verify } from '../webhooks/helpers';

/**
 * Only who should reaches the local engine: FerretDB refuses a client without a login (or with a
 * wrong one), PostgreSQL refuses a connection without the password and any role but its superuser
 * and FerretDB's own, a service's password included. And what the database holds, read whole as
 * its administrator, has no webhook secret and no token in clear.
 */
describe('the database refuses who has no login', () => {
  const stack = sharedStack();
  const secrets = readLocalSecrets(stack.secretsFile);
  const url = new URL(stack.mongoUrl);

  async function findOne(mongoUrl: string, auth?: { username: string; password: string }) {
    const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 5_000, ...(auth && { auth }) });
    try {
      await client.connect();
      return await client.db().collection('stores').findOne({});
    } finally {
      await client.close();
    }
  }

  it('FerretDB: no login may not read, a wrong password may not log in, each service may', async () => {
    await expect(findOne(stack.mongoUrl)).rejects.toMatchObject({ codeName: 'Unauthorized' });
    const gateway = secrets.services.gateway;
    await expect(
      findOne(stack.mongoUrl, { username: gateway.user, password: 'not-the-password' }),
    ).rejects.toMatchObject({ codeName: 'AuthenticationFailed' });
    for (const login of Object.values(secrets.services)) {
      await expect(findOne(stack.mongoUrl, { username: login.user, password: login.password })).resolves.toBeDefined();
    }
    await expect(findOne(stack.mongoAdminUrl!)).resolves.toBeDefined();
  });

  it('PostgreSQL: no password, a wrong one and a service login are refused; the superuser is not', async () => {
    const pg = new URL(stack.postgresUrl!);
    const connect = async (user: string, password?: string) => {
      const client = new Client({ host: pg.hostname, port: Number(pg.port), database: 'postgres', user, password });
      try {
        await client.connect();
        return (await client.query('SELECT 1 AS one')).rows[0] as { one: number };
      } finally {
        await client.end().catch(() => undefined);
      }
    };
    await expect(connect('postgres')).rejects.toThrow(/password/);
    await expect(connect('postgres', 'not-the-password')).rejects.toThrow(/password authentication failed/);
    const payments = secrets.services.payments;
    await expect(connect(payments.user, payments.password)).rejects.toThrow(/no pg_hba.conf entry/);
    await expect(connect('postgres', decodeURIComponent(pg.password))).resolves.toEqual({ one: 1 });
    expect(url.username).toBe('');
  });
});

describe('what the database holds', () => {
  const stack = sharedStack();
  const receiver = new WebhookReceiver();
  let webhookUrl: string;
  beforeAll(async () => {
    webhookUrl = await receiver.start();
  });
  afterAll(() => receiver.stop());

  it('has no webhook secret and no token in clear, in any collection, after a rotation and a delivery', async () => {
    const store = await createStore(stack, 'Scanned store');
    const issued = await admin<{ token: string }>(stack, 'token', 'issue', '--store', store.storeId);
    const rotated = await admin<{ webhookSecret: string }>(stack, 'store', 'rotate-secret', store.storeId);
    const paymentId = await createPayment(stack, store.token, webhookUrl);
    const [hook] = await eventually(
      async () => receiver.events(paymentId),
      (hooks) => hooks.length >= 1,
    );
    // The delivery was signed with both secrets: the dispatcher had them, opened, from the gateway.
    expect(verify(hook, rotated.webhookSecret)).toMatchObject({ id: paymentId });
    expect(verify(hook, store.webhookSecret)).toMatchObject({ id: paymentId });

    const secretsInClear = [store.webhookSecret, rotated.webhookSecret, store.token, issued.token].flatMap((s) => [
      s,
      s.slice(s.indexOf('_') + 1),
    ]);
    const client = new MongoClient(stack.mongoAdminUrl!);
    try {
      const db = client.db();
      const collections = await db.listCollections({}, { nameOnly: true }).toArray();
      expect(collections.map((c) => c.name)).toEqual(expect.arrayContaining(['stores', 'tokens', 'payments']));
      let documents = 0;
      for (const { name } of collections) {
        for await (const doc of db.collection(name).find({})) {
          documents++;
          const text = BSON.EJSON.stringify(doc);
          for (const secret of secretsInClear) expect(text.includes(secret) ? `${name}: ${secret}` : null).toBeNull();
        }
      }
      expect(documents).toBeGreaterThan(0);
      const stored = await db.collection('stores').findOne({ _id: store.storeId as never });
      expect(stored?.webhookSecrets).toEqual([
        expect.objectContaining({ sealed: expect.stringMatching(/^v2\./) }),
        expect.objectContaining({ sealed: expect.stringMatching(/^v2\./) }),
      ]);
    } finally {
      await client.close();
    }
  });
});
