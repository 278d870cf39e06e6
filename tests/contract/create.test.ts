import { ErrorMessages } from '@pix/contracts';
import { createStore, type StoreCredentials } from '../support/admin';
import { contractClient, PATH_FORMS, type ContractClient } from '../support/contract';
import { sharedStack } from '../support/stack';

const stack = sharedStack();
let call: ContractClient;
let store: StoreCredentials;

beforeAll(async () => {
  call = await contractClient(stack.gatewayUrl);
  store = await createStore(stack, 'Create store');
});

const EXACT_ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(PATH_FORMS)('POST %s (spec 4.1, 7, 8)', (base) => {
  const post = (body: unknown) => call('POST', base, { token: store.token, body });
  const refused = async (body: unknown, message: string) => {
    const res = await post(body);
    expect(res).toMatchObject({ status: 400, body: { statusCode: 400, message } });
  };

  it.each([5, 5.01, 10.5, 2999.99, 3000])('accepts amount %p with the payment body of 2.1', async (amount) => {
    const res = await post({ amount });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      amount,
      status: 'pending',
      storeId: store.storeId,
      isPublic: true,
      webhookUrl: null,
      observation: null,
      email: null,
    });
    expect(res.body.createdAt).toMatch(EXACT_ISO_MS);
    expect(typeof res.body.qrCopyPaste).toBe('string');
  });

  it('returns every field it was given, the same from create, get and list', async () => {
    const body = {
      amount: 123.45,
      email: 'cliente@example.com',
      observation: 'Pedido 42',
      webhookUrl: 'https://merchant.example/hooks',
    };
    const created = await post(body);
    expect(created.body).toMatchObject(body);
    const read = await call('GET', `${base}/${String(created.body.id)}`, { token: store.token });
    expect(read.body).toEqual(created.body);
    const list = await call<{ items: unknown[] }>('GET', `${base}?limit=1`, { token: store.token });
    expect(list.body.items[0]).toEqual(created.body);
  });

  // FerretDB 1.24 kept documents as PostgreSQL jsonb, which holds no NUL, and answered 500 (issue
  // 17). MongoDB stores any UTF-8 string, and so does DocumentDB's BSON: kept exactly.
  it('stores an observation with a NUL character exactly, and reads it back', async () => {
    const observation = 'a\u0000b';
    const created = await post({ amount: 10, observation });
    expect(created).toMatchObject({ status: 200, body: { observation } });
    const read = await call('GET', `${base}/${String(created.body.id)}`, { token: store.token });
    expect(read).toMatchObject({ status: 200, body: { observation } });
  });

  it.each([4.99, 0, -10, 0.01])('refuses amount %p with the minimum message', async (amount) => {
    await refused({ amount }, ErrorMessages.amountMin);
    const res = await post({ amount });
    expect(String(res.body.message)).toContain('mínimo');
  });

  it.each([3000.01, 3001, 1e9])('refuses amount %p with the maximum message', async (amount) => {
    await refused({ amount }, ErrorMessages.amountMax);
    const res = await post({ amount });
    expect(String(res.body.message)).toContain('máximo');
  });

  it.each([['10'], [null], [true], [[10]], [{ value: 10 }]])('refuses amount %p (not a number)', async (amount) => {
    await refused({ amount }, ErrorMessages.amountInvalid);
  });

  // Float noise is no rounding licence: 29.999999999999996 is not 30.00, 5.0600000000000005 not 5.06.
  it.each([10.001, 5.005, 29.999999999999996, 5.0600000000000005, 2999.999])(
    'refuses amount %p, which has a third decimal place',
    async (amount) => {
      await refused({ amount }, ErrorMessages.amountTooPrecise);
    },
  );

  it.each([
    ['25', 25],
    ['25.5', 25.5],
    ['25.50', 25.5],
    ['2.55e1', 25.5],
    ['19.99', 19.99],
    ['1234.56', 1234.56],
  ])('takes the amount written %s as exactly %p BRL', async (written, amount) => {
    const res = await call('POST', base, {
      token: store.token,
      rawBody: `{"amount": ${written}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res).toMatchObject({ status: 200, body: { amount } });
  });

  it('refuses a missing amount', async () => {
    await refused({ email: 'a@example.com' }, ErrorMessages.amountInvalid);
  });

  it.each(['not-an-email', 'a@', '@example.com', 42])('refuses email %p', async (email) => {
    await refused({ amount: 10, email }, ErrorMessages.emailInvalid);
  });

  it('accepts an observation of 2048 characters and refuses 2049', async () => {
    expect((await post({ amount: 10, observation: 'x'.repeat(2048) })).status).toBe(200);
    await refused({ amount: 10, observation: 'x'.repeat(2049) }, ErrorMessages.observationTooLong);
  });

  it.each(['not a url', 'ftp://example.com/x', 'http://', 'javascript:alert(1)', 7])(
    'refuses webhookUrl %p',
    async (webhookUrl) => {
      await refused({ amount: 10, webhookUrl }, ErrorMessages.webhookUrlInvalid);
    },
  );

  it('with several invalid fields answers the first of amount, email, observation, webhookUrl', async () => {
    const bad = { amount: 1, email: 'x', observation: 'x'.repeat(2049), webhookUrl: 'x' };
    await refused(bad, ErrorMessages.amountMin);
    await refused({ ...bad, amount: 10 }, ErrorMessages.emailInvalid);
    await refused({ ...bad, amount: 10, email: undefined }, ErrorMessages.observationTooLong);
    await refused({ ...bad, amount: 10, email: undefined, observation: 'ok' }, ErrorMessages.webhookUrlInvalid);
  });

  it.each([['[]'], ['"text"'], ['42'], ['null']])('refuses the JSON %s, which is not an object', async (rawBody) => {
    const res = await call('POST', base, {
      token: store.token,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400 });
  });

  it('validates a JSON request without a body as an empty object', async () => {
    const res = await call('POST', base, { token: store.token, headers: { 'content-type': 'application/json' } });
    expect(res).toMatchObject({ status: 400, body: { statusCode: 400, message: ErrorMessages.amountInvalid } });
  });

  it('answers malformed JSON with 400 in the error body', async () => {
    const res = await call('POST', base, {
      token: store.token,
      rawBody: '{"amount": 10,',
      headers: { 'content-type': 'application/json' },
    });
    expect(res).toMatchObject({ status: 400, body: { statusCode: 400, message: ErrorMessages.malformedJson } });
  });

  it('answers another content type with 400 in the error body', async () => {
    const res = await call('POST', base, {
      token: store.token,
      rawBody: 'amount=10',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res).toMatchObject({
      status: 400,
      body: { statusCode: 400, message: ErrorMessages.unsupportedMediaType },
    });
    const missing = await call('POST', base, { token: store.token });
    expect(missing).toMatchObject({
      status: 400,
      body: { statusCode: 400, message: ErrorMessages.unsupportedMediaType },
    });
    const charset = await call('POST', base, {
      token: store.token,
      rawBody: '{"amount": 10}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
    const plain = await call('POST', base, {
      token: store.token,
      rawBody: '{"amount": 10}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain).toMatchObject({
      status: 400,
      body: { statusCode: 400, message: ErrorMessages.unsupportedMediaType },
    });
  });

  it('answers a body over 64 KB with 413 in the error body', async () => {
    const res = await call('POST', base, {
      token: store.token,
      body: { amount: 10, observation: 'x'.repeat(70 * 1024) },
    });
    expect(res).toMatchObject({ status: 413, body: { statusCode: 413, message: ErrorMessages.payloadTooLarge } });
  });
});
