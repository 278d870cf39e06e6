import { ErrorMessages, type Payment } from '@pix/contracts';
import { admin, adminFails, createStore, type StoreCredentials } from '../support/admin';
import { contractClient, PATH_FORMS, type ContractClient } from '../support/contract';
import { sharedStack } from '../support/stack';

const stack = sharedStack();
let call: ContractClient;
let store: StoreCredentials;
/** Newest first, as created. */
const created: Payment[] = [];

interface List {
  items: Payment[];
  page: number;
  limit: number;
  total: number;
}

beforeAll(async () => {
  call = await contractClient(stack.gatewayUrl);
  store = await createStore(stack, 'List store');
  for (const amount of [11, 12, 13, 14, 15]) {
    const res = await call<Payment>('POST', PATH_FORMS[0], { token: store.token, body: { amount } });
    created.unshift(res.body);
  }
  // A payment made outside the public API (isPublic false) is the newest.
  created.unshift(
    await admin<Payment>(stack, 'payment', 'create-internal', '--store', store.storeId, '--amount', '16.50'),
  );
});

describe.each(PATH_FORMS)('GET %s (spec 4.3)', (base) => {
  const list = (query = '') => call<List>('GET', `${base}${query}`, { token: store.token });

  it('lists the store payments newest first, with defaults page 1 and limit 50 and the total', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, limit: 50, total: created.length });
    expect(res.body.items.map((p) => p.id)).toEqual(created.map((p) => p.id));
  });

  it('lists isPublic false payments created through the admin CLI', async () => {
    const res = await list();
    expect(res.body.items[0]).toMatchObject({ amount: 16.5, isPublic: false, storeId: store.storeId });
    expect(res.body.items.slice(1).every((p) => p.isPublic)).toBe(true);
  });

  it('pages through the list', async () => {
    const first = await list('?page=1&limit=2');
    const third = await list('?page=3&limit=2');
    const beyond = await list('?page=4&limit=2');
    expect(first.body).toMatchObject({ page: 1, limit: 2, total: created.length });
    expect(first.body.items.map((p) => p.id)).toEqual(created.slice(0, 2).map((p) => p.id));
    expect(third.body.items.map((p) => p.id)).toEqual(created.slice(4, 6).map((p) => p.id));
    expect(beyond.body).toMatchObject({ items: [], page: 4, total: created.length });
  });

  it('accepts the last page the document allows', async () => {
    const res = await list('?page=1000000&limit=200');
    expect(res.body).toMatchObject({ items: [], page: 1_000_000, limit: 200, total: created.length });
  });

  it.each([1, 200])('accepts limit %p', async (limit) => {
    const res = await list(`?limit=${limit}`);
    expect(res.body).toMatchObject({ limit, total: created.length });
    expect(res.body.items).toHaveLength(Math.min(limit, created.length));
  });

  it('filters by status, and total counts the filter', async () => {
    const pending = await list('?status=pending');
    expect(pending.body.total).toBe(created.length);
    const approved = await list('?status=approved');
    expect(approved.body).toMatchObject({ items: [], total: 0 });
  });

  it.each([
    ['?page=0', 'page must not be less than 1'],
    ['?page=-1', 'page must not be less than 1'],
    ['?page=abc', 'page must be an integer number'],
    ['?page=1.5', 'page must be an integer number'],
    ['?page=', 'page must be an integer number'],
    ['?limit=0', 'limit must not be less than 1'],
    ['?limit=201', 'limit must not be greater than 200'],
    ['?limit=ten', 'limit must be an integer number'],
    ['?status=paid', 'status must be one of the following values: pending, approved, review, not_approved'],
    ['?status=PENDING', 'status must be one of the following values: pending, approved, review, not_approved'],
    ['?status=', 'status must be one of the following values: pending, approved, review, not_approved'],
    [
      '?status=pending&status=approved',
      'status must be one of the following values: pending, approved, review, not_approved',
    ],
    ['?page=1&page=2', 'page must be an integer number'],
    // However many digits a well-formed integer has, it is told the bound it passed.
    ['?page=1000001', 'page must not be greater than 1000000'],
    ['?page=214988458686061740032', 'page must not be greater than 1000000'],
    [`?page=${'9'.repeat(400)}`, 'page must not be greater than 1000000'],
    ['?page=-9007199254740993', 'page must not be less than 1'],
    ['?limit=99999999999999999999', 'limit must not be greater than 200'],
  ])('answers %s with 400 "%s"', async (query, message) => {
    const res = await list(query);
    expect(res).toMatchObject({ status: 400, body: { statusCode: 400, message } });
  });
});

describe.each(PATH_FORMS)('GET %s with bracketed parameters', (base) => {
  it('treats status[$ne] as an unknown parameter, never as a query operator', async () => {
    const res = await call<List>('GET', `${base}?status[$ne]=pending&status[$exists]=1`, { token: store.token });
    expect(res.body).toMatchObject({ total: created.length });
  });
});

describe.each(PATH_FORMS)('GET %s/:id (spec 4.2)', (base) => {
  it.each([
    ['an unknown UUID', '00000000-0000-4000-8000-000000000000'],
    ['not a UUID', 'not-an-id'],
    ['an operator', '%7B%22%24ne%22%3A1%7D'],
    ['an upper-case UUID of an existing payment', 'UPPER'],
  ])('answers %s with 404 "Pagamento não encontrado."', async (_what, id) => {
    const path = id === 'UPPER' ? created[0]!.id.toUpperCase() : id;
    const res = await call('GET', `${base}/${path}`, { token: store.token });
    expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.paymentNotFound } });
  });

  it('reads an isPublic false payment of the store', async () => {
    const res = await call<Payment>('GET', `${base}/${created[0]!.id}`, { token: store.token });
    expect(res.body).toEqual(created[0]);
  });
});

describe('routes the API does not have', () => {
  it.each([
    ['GET', '/'],
    ['GET', '/api-public'],
    ['GET', '/public-api/v2/payments'],
    ['GET', '/api-public/payments/a/b'],
    // A method a served path does not take is 405 (http-errors.test.ts); these paths are served by none.
    ['DELETE', '/api-public/payments/00000000-0000-4000-8000-000000000000/refund'],
    ['PUT', '/public-api/v1/refunds'],
  ])('%s %s is 404 in the error body', async (method, path) => {
    const res = await call(method, path, { token: store.token });
    expect(res).toMatchObject({ status: 404, body: { statusCode: 404, message: ErrorMessages.routeNotFound } });
  });
});

describe('admin payment create-internal', () => {
  it('payment create-internal refuses an amount that is not BRL with two decimals', async () => {
    for (const amount of ['abc', '10.001', '0', '-5']) {
      const failure = await adminFails(
        stack,
        'payment',
        'create-internal',
        '--store',
        store.storeId,
        '--amount',
        amount,
      );
      expect(failure.code).not.toBe(0);
      expect(failure.stderr).toMatch(/amount/);
    }
  });
});
