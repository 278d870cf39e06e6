import { admin } from '../support/admin';
import { commandsBetween, settledCounts, type CommandCounts } from '../support/db-commands';
import { paymentsClient, statusChangedEvents } from '../support/payments';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/** payments' commands, as `command collection` → count. */
function ofPayments(counts: CommandCounts): Record<string, number> {
  return Object.fromEntries(
    [...counts].filter(([key]) => key.startsWith('payments ')).map(([key, n]) => [key.slice('payments '.length), n]),
  );
}

/**
 * What a create and a status change cost payments' database, counted by the driver's command
 * monitoring (db_commands_total) on a stack of the test's own: a create is its insert, a change the
 * read of the payment and its conditional update. That their messages were published is written
 * nowhere (docs/decisions/outbox-publication-by-writer.md): no update of the payment follows.
 */
describe("payments' database commands per create and per status change", () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    // The relay's pass (every few seconds) is no write's work.
    stack = await startPrivateStack({ env: { OUTBOX_RELAY_INTERVAL: '1h' } });
  });
  afterAll(() => stack?.stop());

  it('creates for one insert and changes for one read and one update, a pay with its movement', async () => {
    const client = await paymentsClient(stack);
    await client.create(10);

    const beforeCreate = await settledCounts(stack);
    const payment = await client.create(11);
    const created = ofPayments(commandsBetween(beforeCreate, await settledCounts(stack)));

    const beforePay = await settledCounts(stack);
    await admin(stack, 'sandbox', 'pay', payment.id);
    await statusChangedEvents(stack, payment.id, 1);
    const paid = ofPayments(commandsBetween(beforePay, await settledCounts(stack)));
    process.stdout.write(`payments per create: ${JSON.stringify(created)}; per pay: ${JSON.stringify(paid)}\n`);

    expect(created).toEqual({ 'insert payments': 1 });
    // The pay moves money: its movement's one upsert into the store's balance (docs/decisions/balance-transactions.md).
    expect(paid).toEqual({ 'find payments': 1, 'update payments': 1, 'update balance_transactions': 1 });
  }, 90_000);
});
