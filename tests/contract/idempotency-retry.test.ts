import path from 'node:path';
import { ErrorMessages, type Payment } from '@pix/contracts';
import { randomPorts, startService, stopProcesses, type Started } from '@pix/devstack';
import { createStore } from '../support/admin';
import { eventually } from '../support/api';
import { contractClient, PATH_FORMS } from '../support/contract';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * A create that fails because payments is down is not remembered as a failure: the client's retry
 * with the same Idempotency-Key creates the payment once payments is back, and later repeats
 * return that same payment.
 */
let stack: PrivateStack;
const late: Started[] = [];

beforeAll(async () => {
  stack = await startPrivateStack({ services: ['gateway'] });
});
afterAll(async () => {
  await stopProcesses(late);
  await stack.stop();
});

it('a retry with the same key after a 503 creates the payment, once', async () => {
  const call = await contractClient(stack.gatewayUrl);
  const store = await createStore(stack, 'Retrying store');
  const create = () =>
    call<Payment>('POST', PATH_FORMS[1], {
      token: store.token,
      body: { amount: 30 },
      headers: { 'idempotency-key': 'order-1' },
    });

  const down = await create();
  expect(down).toMatchObject({ status: 503, body: { statusCode: 503, message: ErrorMessages.unavailable } });

  const options = {
    dir: path.join(stack.dir, 'late'),
    ports: await randomPorts(),
    detached: false,
    secretsFile: stack.secretsFile,
  };
  late.push(await startService('payments', options, stack, stack.mongoUrl));

  // A client retries a 503 with the same key until payments answers.
  const first = await eventually(create, (res) => res.status !== 503);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ amount: 30, status: 'pending', isPublic: true, storeId: store.storeId });
  const again = await create();
  expect(again.body.id).toBe(first.body.id);
  const list = await call<{ total: number }>('GET', PATH_FORMS[0], { token: store.token });
  expect(list.body.total).toBe(1);
});
