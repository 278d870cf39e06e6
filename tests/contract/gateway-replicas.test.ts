import path from 'node:path';
import { ErrorMessages } from '@pix/contracts';
import {
  randomPorts,
  startNats,
  startService,
  stopProcesses,
  stopPid,
  type Started,
  type StackOptions,
} from '@pix/devstack';
import { admin, createStore } from '../support/admin';
import { api, eventually } from '../support/api';
import { contractClient, PATH_FORMS, type ContractClient } from '../support/contract';
import { startPrivateStack, type PrivateStack } from '../support/stack';

/**
 * Two gateway replicas on one NATS and one FerretDB: what one replica's admin handler writes must
 * reach the other's auth cache within a second, and the rate limit is per token on each replica.
 * Only gateways run: a request that passes auth is probed on a path id that is not a payment id,
 * which the gateway answers 404 itself.
 */
const LIMIT = 40;
const env = { RATE_LIMIT_REQUESTS: String(LIMIT), RATE_LIMIT_WINDOW: '1m' };
const ACCEPTED = 404;
const probe = (base: string) => `${base}/not-a-payment-id`;
let stack: PrivateStack;
let second: Started;
let restartedNats: Started | undefined;
let replicas: [ContractClient, ContractClient];
let secondUrl: string;

beforeAll(async () => {
  stack = await startPrivateStack({ services: ['gateway'], env });
  const ports = await randomPorts();
  const options: StackOptions = {
    dir: path.join(stack.dir, 'replica-2'),
    ports,
    detached: false,
    env,
    secretsFile: stack.secretsFile,
  };
  second = await startService('gateway', options, stack, stack.mongoUrl);
  secondUrl = `http://127.0.0.1:${ports.gateway}`;
  replicas = [await contractClient(stack.gatewayUrl), await contractClient(secondUrl)];
});

afterAll(async () => {
  await stopProcesses([second]);
  if (restartedNats) await stopProcesses([restartedNats]);
  await stack.stop();
});

/** Every replica answers `status` within one second. */
async function everyReplicaAnswers(token: string, status: number, message?: string): Promise<void> {
  for (const call of replicas) {
    for (const base of PATH_FORMS) {
      const res = await eventually(
        () => call('GET', probe(base), { token }),
        (r) => r.status === status,
        1000,
        50,
      );
      if (message) expect(res.body).toEqual({ statusCode: status, message });
    }
  }
}

async function issueToken(storeId: string): Promise<string> {
  return (await admin<{ token: string }>(stack, 'token', 'issue', '--store', storeId)).token;
}

describe('two gateway replicas', () => {
  it('both refuse a revoked token within one second', async () => {
    const store = await createStore(stack, 'Replicated store');
    const token = await issueToken(store.storeId);
    await everyReplicaAnswers(token, ACCEPTED);
    await admin(stack, 'token', 'revoke', token);
    await everyReplicaAnswers(token, 401, ErrorMessages.tokenInvalid);
  });

  it('both answer 403 for a deactivated store within one second, and accept it again once reactivated', async () => {
    const store = await createStore(stack, 'Deactivated replicated store');
    const token = await issueToken(store.storeId);
    await everyReplicaAnswers(token, ACCEPTED);
    await admin(stack, 'store', 'deactivate', store.storeId);
    await everyReplicaAnswers(token, 403, ErrorMessages.storeInactive);
    await admin(stack, 'store', 'activate', store.storeId);
    await everyReplicaAnswers(token, ACCEPTED);
  });

  it('limits requests per token on each replica: 429 with Retry-After in the error body', async () => {
    const store = await createStore(stack, 'Busy store');
    const [one, two] = replicas;
    for (let i = 0; i < LIMIT; i++) {
      expect((await one('GET', probe(PATH_FORMS[i % 2] ?? PATH_FORMS[0]), { token: store.token })).status).toBe(
        ACCEPTED,
      );
    }
    for (const base of PATH_FORMS) {
      const res = await one('GET', probe(base), { token: store.token });
      expect(res).toMatchObject({ status: 429, body: { statusCode: 429, message: ErrorMessages.rateLimited } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const created = await one('POST', PATH_FORMS[0], { token: store.token, body: { amount: 10 } });
    expect(created.status).toBe(429);
    // Another token of the same store, and the other replica, have their own budgets.
    expect((await one('GET', probe(PATH_FORMS[0]), { token: await issueToken(store.storeId) })).status).toBe(ACCEPTED);
    expect((await two('GET', probe(PATH_FORMS[0]), { token: store.token })).status).toBe(ACCEPTED);
  });

  it('keep watching after NATS restarts: a later revocation still reaches both within one second', async () => {
    const store = await createStore(stack, 'Store across a NATS restart');
    const token = await issueToken(store.storeId);
    await everyReplicaAnswers(token, ACCEPTED);
    const nats = stack.processes.find((p) => p.name === 'nats-server');
    if (!nats) throw new Error('the private stack has no nats-server');
    await stopPid(nats.pid);
    restartedNats = await startNats(stack.dir, Number(new URL(stack.natsUrl).port), false);
    stack.processes.splice(stack.processes.indexOf(nats), 1);
    // Both replicas are back on NATS once they serve the admin subjects again.
    await eventually(
      () =>
        admin(stack, 'token', 'revoke', token).then(
          () => true,
          () => false,
        ),
      (done) => done,
      20_000,
      250,
    );
    await everyReplicaAnswers(token, 401, ErrorMessages.tokenInvalid);
    expect((await api(secondUrl, 'GET', probe(PATH_FORMS[0]), { token: store.token })).status).toBe(ACCEPTED);
  });
});
