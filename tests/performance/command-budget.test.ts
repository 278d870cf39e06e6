import type { PspConnection } from '@pix/devstack';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { api, eventually } from '../support/api';
import { commandsBetween, settledCounts, total, type CommandCounts } from '../support/db-commands';
import { startPrivateStack, type PrivateStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * What each operation costs in database commands, counted by the driver's command monitoring in
 * every service (db_commands_total), from the first command the operation causes until the whole
 * platform is quiet again: background steps it causes count too. Counts, never timings. The PSP
 * simulator's books are the PSP's database, in a process of its own: not counted.
 *
 * Before this budget (the outbox relay, deadline runner and webhook scheduler polling MongoDB) the
 * same operations cost: create 7, get 1, list 2, PSP confirmation to webhook answered 23; with
 * FerretDB 1.24's claims on every write, create 3, get 1, list 2, confirmation 11; with the removal
 * of published messages from the payment (before their writer's word recorded it), create 2.
 */
describe('database commands per operation', () => {
  let stack: PrivateStack;
  let store: StoreCredentials;
  const receiver = new WebhookReceiver();
  let webhookUrl: string;

  beforeAll(async () => {
    // The outbox relay's idle read (every few seconds), the stall check's and the reconciliation's and
    // the infractions reading's cursors (every minute) are not work an operation causes.
    stack = await startPrivateStack({
      env: {
        OUTBOX_RELAY_INTERVAL: '1h',
        WEBHOOK_STALL_SWEEP_INTERVAL: '1h',
        RECONCILE_INTERVAL: '1h',
        INFRACTIONS_INTERVAL: '1h',
      },
    });
    webhookUrl = await receiver.start();
    store = await createStore(stack);
    // The first request of a token reads it; every later one is served by the gateway's cache.
    await create({ amount: 10 });
  });
  afterAll(async () => {
    await receiver.stop();
    await stack.stop();
  });

  function create(body: Record<string, unknown>) {
    return api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', { token: store.token, body });
  }

  async function measure(operation: () => Promise<unknown>): Promise<CommandCounts> {
    const before = await settledCounts(stack);
    await operation();
    return commandsBetween(before, await settledCounts(stack));
  }

  it('create costs 1 command: the insert (that its messages were published is written nowhere)', async () => {
    const counts = await measure(async () => expect((await create({ amount: 25.5 })).status).toBe(200));
    expect([...counts]).toEqual([['payments insert payments', 1]]);
  });

  it('a create with an Idempotency-Key costs 2, a repeat 4 (each insert refused, then read)', async () => {
    const key = `budget-${Date.now()}`;
    const send = () =>
      api<{ id: string }>(stack.gatewayUrl, 'POST', '/public-api/v1/payments', {
        token: store.token,
        body: { amount: 14 },
        headers: { 'Idempotency-Key': key },
      });
    let id = '';
    const first = await measure(async () => {
      const res = await send();
      expect(res.status).toBe(200);
      id = res.body.id;
    });
    expect([...first].sort()).toEqual([
      ['gateway insert idempotency_keys', 1],
      ['payments insert payments', 1],
    ]);
    const repeat = await measure(async () => expect((await send()).body.id).toBe(id));
    expect([...repeat].sort()).toEqual([
      ['gateway find idempotency_keys', 1],
      ['gateway insert idempotency_keys', 1],
      ['payments find payments', 1],
      ['payments insert payments', 1],
    ]);
  });

  it('get costs no command (it reads its view) and a list page 1 (its total is a counter on JetStream)', async () => {
    const { body } = await create({ amount: 12 });
    const get = await measure(async () =>
      expect(
        (await api(stack.gatewayUrl, 'GET', `/api-public/payments/${body.id}`, { token: store.token })).status,
      ).toBe(200),
    );
    // Before the read model (docs/decisions/payment-read-model.md) a get cost payments' find.
    expect([...get]).toEqual([]);
    const list = await measure(async () =>
      expect(
        (await api(stack.gatewayUrl, 'GET', '/api-public/payments?status=pending&limit=5', { token: store.token }))
          .status,
      ).toBe(200),
    );
    expect([...list]).toEqual([['payments find payments', 1]]);
  });

  /**
   * The commands from a payment's pay (`pay`, by whatever way in) to its payment.status_changed
   * webhook answered 2xx, for a payment whose payment.created webhook has arrived already.
   */
  async function measureConfirmation(amount: number, pay: (id: string) => Promise<unknown>): Promise<CommandCounts> {
    const { body } = await create({ amount, webhookUrl });
    await eventually(
      async () => receiver.events(body.id, 'payment.created').length,
      (n) => n === 1,
    );
    return measure(async () => {
      await pay(body.id);
      await eventually(
        async () => receiver.events(body.id, 'payment.status_changed').length,
        (n) => n === 1,
      );
    });
  }

  it("costs at most 8 commands from the PSP's confirmation to the merchant's webhook answered 2xx", async () => {
    const counts = await measureConfirmation(30, (id) => admin(stack, 'sandbox', 'pay', id));
    expect(total(counts)).toBeLessThanOrEqual(8);
  });

  it("the public API's sandbox pay reads the payment from its view: payments reads only what the confirmation needs", async () => {
    const counts = await measureConfirmation(31, async (id) => {
      const paid = await api(stack.gatewayUrl, 'POST', `/api-public/sandbox/payments/${id}/pay`, {
        token: store.token,
      });
      expect(paid.status).toBe(200);
    });
    // The confirmation's own read of the payment (by txid). Before the sandbox read the view, the
    // route asked payments for the payment first: a second find, and a request more on the bus.
    expect(counts.get('payments find payments')).toBe(1);
    expect(total(counts)).toBeLessThanOrEqual(8);
  });

  it("the PSP simulator's books answer a confirmation in 5 commands: its callback reads neither the charge nor the webhook", async () => {
    // The simulator's database is on the platform's database server, whose CPU the bench counts.
    const simulator = { opsUrls: { psp: (stack.psp as PspConnection).opsUrl } };
    // The registration is read on the first callback after it was made (the adapter's, at start).
    await measureConfirmation(32, (id) => admin(stack, 'sandbox', 'pay', id));
    let before: CommandCounts = new Map();
    await measureConfirmation(33, async (id) => {
      before = await settledCounts(simulator);
      await admin(stack, 'sandbox', 'pay', id);
    });
    const counts = commandsBetween(before, await settledCounts(simulator));
    // The pay: the charge read (its amount) and its Pix recorded, then its line in the ledger; the
    // adapter's read-back of the Pix (its charge, which says no refund was asked of it); the
    // callback taken. The callback
    // goes to the key's webhook as read before (kept in memory) with the key of the charge in hand.
    expect(Object.fromEntries(counts)).toEqual({
      'psp-simulator find sandbox_psp_cobs': 2,
      'psp-simulator findAndModify sandbox_psp_cobs': 1,
      'psp-simulator update sandbox_psp_pix': 1,
      'psp-simulator update sandbox_psp_cobs': 1,
    });
  });

  it("a refund's check and record is one update, and the refund costs at most 6 commands until the PSP settled it", async () => {
    const { body } = await create({ amount: 20 });
    await admin(stack, 'sandbox', 'pay', body.id);
    await eventually(
      async () =>
        (
          await api<{ status: string }>(stack.gatewayUrl, 'GET', `/api-public/payments/${body.id}`, {
            token: store.token,
          })
        ).body.status,
      (status) => status === 'approved',
    );
    // Until the whole platform is quiet again: the PSP settles the refund 200 ms after taking it.
    const counts = await measure(async () => {
      const refund = await api(stack.gatewayUrl, 'POST', `/api-public/payments/${body.id}/refunds`, {
        token: store.token,
        body: { amount: 5 },
      });
      expect(refund.status).toBe(200);
    });
    const after = await api<{ refundedAmount: number }>(stack.gatewayUrl, 'GET', `/api-public/payments/${body.id}`, {
      token: store.token,
    });
    expect(after.body.refundedAmount).toBe(5);
    // Asked: the payment read (the store's, or 404), the one conditional update that checks what is
    // left and records the refund. Settled: the payment read by its txid, the refund's update, and
    // the money it moved, one upsert into the store's balance.
    expect(Object.fromEntries(counts)).toEqual({
      'payments find payments': 2,
      'payments update payments': 2,
      'payments update balance_transactions': 1,
    });
  });
});
