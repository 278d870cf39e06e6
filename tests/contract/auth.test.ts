import { ErrorMessages } from '@pix/contracts';
import { admin, createStore, type StoreCredentials } from '../support/admin';
import { eventually } from '../support/api';
import { contractClient, PATH_FORMS, type ContractClient } from '../support/contract';
import { sharedStack } from '../support/stack';

const stack = sharedStack();
let call: ContractClient;
let store: StoreCredentials;

beforeAll(async () => {
  call = await contractClient(stack.gatewayUrl);
  store = await createStore(stack, 'Auth store');
});

describe.each(PATH_FORMS)('auth on %s (spec 5)', (base) => {
  const endpoints = (id = '00000000-0000-4000-8000-000000000000'): [string, string][] => [
    ['GET', base],
    ['POST', base],
    ['GET', `${base}/${id}`],
  ];

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['the scheme without a token', 'Bearer'],
    ['the scheme and blanks', 'Bearer    '],
  ])('answers 401 "Bearer token ausente." when the header is %s', async (_what, header) => {
    for (const [method, path] of endpoints()) {
      const headers = header === undefined ? undefined : { authorization: header };
      const res = await call(method, path, { headers, body: method === 'POST' ? { amount: 10 } : undefined });
      expect(res).toMatchObject({ status: 401, body: { statusCode: 401, message: ErrorMessages.bearerMissing } });
    }
  });

  it.each([
    ['unknown', 'pxt_unknown-token'],
    ['of another scheme', 'Basic dXNlcjpwYXNz'],
  ])('answers 401 "Token inválido ou expirado." for a token %s', async (_what, header) => {
    for (const [method, path] of endpoints()) {
      const res = await call(method, path, { headers: { authorization: header } });
      expect(res).toMatchObject({ status: 401, body: { statusCode: 401, message: ErrorMessages.tokenInvalid } });
    }
  });

  it('accepts the scheme in any case', async () => {
    const res = await call('GET', base, { headers: { authorization: `bearer ${store.token}` } });
    expect(res.status).toBe(200);
  });
});

describe('token and store lifecycle (spec 5)', () => {
  it('a token with a lifetime works until it expires, then is 401 "Token inválido ou expirado."', async () => {
    const issue = (seconds: string) =>
      admin<{ token: string; expiresAt: string }>(
        stack,
        'token',
        'issue',
        '--store',
        store.storeId,
        '--expires-in',
        seconds,
      );
    const lasting = await issue('600');
    for (const base of PATH_FORMS) expect((await call('GET', base, { token: lasting.token })).status).toBe(200);
    const short = await issue('1');
    const wait = Date.parse(short.expiresAt) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50));
    for (const base of PATH_FORMS) {
      const res = await call('GET', base, { token: short.token });
      expect(res).toMatchObject({ status: 401, body: { statusCode: 401, message: ErrorMessages.tokenInvalid } });
    }
  });

  it('a revoked token is refused within one second, on both path forms', async () => {
    const { token } = await admin<{ token: string }>(stack, 'token', 'issue', '--store', store.storeId);
    for (const base of PATH_FORMS) expect((await call('GET', base, { token })).status).toBe(200);
    await admin(stack, 'token', 'revoke', token);
    for (const base of PATH_FORMS) {
      const res = await eventually(
        () => call('GET', base, { token }),
        (r) => r.status === 401,
        1000,
        50,
      );
      expect(res.body).toEqual({ statusCode: 401, message: ErrorMessages.tokenInvalid });
    }
    // Other tokens of the store keep working.
    expect((await call('GET', PATH_FORMS[0], { token: store.token })).status).toBe(200);
  });

  it('a deactivated store is 403 "Loja inativa." within one second, and works again once reactivated', async () => {
    const own = await createStore(stack, 'Deactivated store');
    for (const base of PATH_FORMS) expect((await call('GET', base, { token: own.token })).status).toBe(200);
    await admin(stack, 'store', 'deactivate', own.storeId);
    for (const base of PATH_FORMS) {
      for (const [method, path] of [
        ['GET', base],
        ['POST', base],
        ['GET', `${base}/00000000-0000-4000-8000-000000000000`],
      ] as const) {
        const res = await eventually(
          () => call(method, path, { token: own.token, body: method === 'POST' ? { amount: 10 } : undefined }),
          (r) => r.status === 403,
          1000,
          50,
        );
        expect(res.body).toEqual({ statusCode: 403, message: ErrorMessages.storeInactive });
      }
    }
    await admin(stack, 'store', 'activate', own.storeId);
    await eventually(
      () => call('GET', PATH_FORMS[1], { token: own.token }),
      (r) => r.status === 200,
      1000,
      50,
    );
  });

  it('another store\'s payment is 404 "Pagamento não encontrado." on both path forms', async () => {
    const other = await createStore(stack, 'Other store');
    const created = await call<{ id: string }>('POST', PATH_FORMS[0], { token: other.token, body: { amount: 10 } });
    expect(created.status).toBe(200);
    for (const base of PATH_FORMS) {
      expect((await call('GET', `${base}/${created.body.id}`, { token: other.token })).status).toBe(200);
      const res = await call('GET', `${base}/${created.body.id}`, { token: store.token });
      expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.paymentNotFound } });
      const list = await call<{ items: { id: string }[] }>('GET', `${base}?limit=200`, { token: store.token });
      expect(list.body.items.map((p) => p.id)).not.toContain(created.body.id);
    }
  });
});
