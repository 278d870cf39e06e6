import { MongoClient } from 'mongodb';
import { txidFor } from '@pix/contracts';
import { databaseOf, PSP_DATABASE_PROCESSES, readLocalSecrets } from '@pix/devstack';
import { paymentsClient } from '../support/payments';
import { withDb, withPspDb } from '../support/db';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/** Whether a login is taken by the FerretDB at `port` (a refused one fails the connection). */
async function logsIn(port: number, login: { user: string; password: string }): Promise<boolean> {
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/admin`, {
    auth: { username: login.user, password: login.password },
    serverSelectionTimeoutMS: 5_000,
  });
  try {
    await client.connect();
    await client.db('admin').command({ ping: 1 });
    return true;
  } catch (err) {
    if (/auth/i.test((err as Error).message)) return false;
    throw err;
  } finally {
    await client.close();
  }
}

/**
 * A stack with its own PostgreSQL (make up, the bench) keeps the PSP simulators' books on a server
 * of their own (docs/development.md#the-local-postgresql): the platform's engine does the
 * platform's work alone, and each server admits only the logins of those it serves.
 */
describe("the PSP simulators' own database server", () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await startPrivateStack({ ownPostgres: true, livePsp: true });
  });
  afterAll(() => stack.stop());

  it('runs beside the platform’s, its processes named as the simulator’s, both simulators on it', () => {
    const names = stack.processes.map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'postgres',
        'ferretdb',
        PSP_DATABASE_PROCESSES.postgres,
        PSP_DATABASE_PROCESSES.ferretdb,
      ]),
    );
    const pspServer = `127.0.0.1:${stack.ports.pspDatabase.mongo}/`;
    expect(stack.psp!.mongoUrl).toContain(pspServer);
    expect(stack.livePsp!.mongoUrl).toContain(pspServer);
    expect(stack.mongoUrl).not.toContain(pspServer);
  });

  it('holds the charge of a payment the API made; the platform’s server holds the payment and no PSP book', async () => {
    const client = await paymentsClient(stack);
    const payment = await client.create(12);

    const charge = await withPspDb(stack, (db) =>
      db.collection('sandbox_psp_cobs').findOne({ _id: txidFor(payment.id) as never }),
    );
    expect(charge).toMatchObject({ amountCents: 1200 });
    const platformDatabases = await withDb(stack.mongoAdminUrl!, async (db) =>
      (await db.admin().listDatabases()).databases.map((d) => d.name),
    );
    const platform = databaseOf(stack.mongoUrl);
    expect(platformDatabases).toContain(platform);
    expect(platformDatabases.filter((name) => name.startsWith(`${platform}_psp`))).toEqual([]);
    const stored = await withDb(stack.mongoAdminUrl!, (db) =>
      db.collection('payments').findOne({ _id: payment.id as never }),
    );
    expect(stored).not.toBeNull();
  });

  it('admits the simulator but no service at the PSP’s server, and not the simulator at the platform’s', async () => {
    const secrets = readLocalSecrets(stack.secretsFile);
    const { mongo } = stack.ports;
    const psp = stack.ports.pspDatabase.mongo;
    expect(await logsIn(psp, secrets.pspSimulator)).toBe(true);
    expect(await logsIn(psp, secrets.services.payments)).toBe(false);
    expect(await logsIn(mongo, secrets.services.payments)).toBe(true);
    expect(await logsIn(mongo, secrets.pspSimulator)).toBe(false);
  });
});
