import { ErrorMessages, type Payment } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { contractClient, PATH_FORMS, type ContractClient } from '../support/contract';
import { sharedStack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const stack = sharedStack();
const receiver = new WebhookReceiver();
let call: ContractClient;
let webhookUrl: string;

beforeAll(async () => {
  call = await contractClient(stack.gatewayUrl);
  webhookUrl = await receiver.start();
});
afterAll(() => receiver.stop());

let keySeq = 0;
const newKey = () => `order-${Date.now()}-${++keySeq}`;

describe.each(PATH_FORMS)('Idempotency-Key on POST %s', (base) => {
  let store: StoreCredentials;
  beforeEach(async () => {
    store = await createStore(stack, 'Idempotent store');
  });
  const create = (key: string | undefined, body: unknown) =>
    call<Payment>('POST', base, {
      token: store.token,
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
  const total = async () => (await call<{ total: number }>('GET', base, { token: store.token })).body.total;

  it('returns the same payment for the same key and body, creating one payment', async () => {
    const key = newKey();
    const first = await create(key, { amount: 25.5, email: 'a@example.com' });
    // Key order and absent-vs-null do not make another request.
    const again = await create(key, { email: 'a@example.com', observation: null, amount: 25.5 });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await total()).toBe(1);
  });

  it('answers 409 for the same key with another body, and creates nothing more', async () => {
    const key = newKey();
    expect((await create(key, { amount: 10 })).status).toBe(200);
    const res = await create(key, { amount: 11 });
    expect(res).toMatchObject({ status: 409, body: { statusCode: 409, message: ErrorMessages.idempotencyKeyReused } });
    expect(await total()).toBe(1);
  });

  it('keeps keys per store: another store may use the same key', async () => {
    const key = newKey();
    const mine = await create(key, { amount: 10 });
    const other = await createStore(stack, 'Other idempotent store');
    const theirs = await call<Payment>('POST', base, {
      token: other.token,
      body: { amount: 10 },
      headers: { 'idempotency-key': key },
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.storeId).toBe(other.storeId);
  });

  it('creates a new payment for every request without a key', async () => {
    await create(undefined, { amount: 10 });
    await create(undefined, { amount: 10 });
    expect(await total()).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
  ])('refuses a key that is %s with 400', async (_what, key) => {
    const res = await create(key, { amount: 10 });
    expect(res).toMatchObject({ status: 400, body: { statusCode: 400, message: ErrorMessages.idempotencyKeyInvalid } });
    expect(await total()).toBe(0);
  });

  it('concurrent duplicates create exactly one payment and one payment.created webhook', async () => {
    const key = newKey();
    const body = { amount: 42, webhookUrl };
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(key, body)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    expect(await total()).toBe(1);
    const id = String([...ids][0]);
    await eventually(
      async () => receiver.events(id, 'payment.created').length,
      (n) => n >= 1,
    );
    // A duplicate event would follow the first within the outbox relay's poll; give it that time.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.events(id, 'payment.created')).toHaveLength(1);
  });
});
