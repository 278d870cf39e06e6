import { CENSORED, errorFields, isSecretName, redact, scrubText } from './redaction';

const PEM_KEY = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789+/abcdefghijklmn',
  '-----END PRIVATE KEY-----',
].join('\n');

describe('isSecretName', () => {
  it('names a secret in any case or separator, at the start or the end of a name', () => {
    for (const name of [
      'key',
      'privateKey',
      'FACT_SIGNING_KEY',
      'SECRETS_KEYS',
      'cert',
      'passphrase',
      'authorization',
      'Proxy-Authorization',
      'cookie',
      'set-cookie',
      'password',
      'MONGO_PASSWORD',
      'secret',
      'clientSecret',
      'PIX_CLIENT_SECRET',
      'x-psp-callback-secret',
      'webhookSecrets',
      'token',
      'access_token',
      'seed',
      'nkeySeed',
      'webhook-signature',
      'sealed',
      'email',
    ]) {
      expect([name, isSecretName(name)]).toEqual([name, true]);
    }
  });

  it('leaves names about a secret, and other words that merely contain one', () => {
    for (const name of [
      'keyId',
      'kid',
      'tokenCount',
      'seedFile',
      'NATS_NKEY_SEED_FILE',
      'monkey',
      'tokenized',
      'route',
    ]) {
      expect([name, isSecretName(name)]).toEqual([name, false]);
    }
  });
});

describe('scrubText', () => {
  it('censors PEM private keys, HTTP credentials, URL passwords and nkey seeds inside text', () => {
    const seed = 'SUAM' + 'A'.repeat(54);
    const text = [
      `key: ${PEM_KEY}`,
      'sent Authorization: Basic bWVyY2hhbnQ6c2VjcmV0 and Bearer eyJhbGciOi.J9.sig',
      'mongodb://pix:s3cret@db:27017/pix?authSource=admin',
      'Invalid connection string "mongodb://pix:un/escaped@db/pix"',
      `seed ${seed}`,
      `cut -----BEGIN RSA PRIVATE KEY-----\nMIIEow`,
    ].join('\n');
    const scrubbed = scrubText(text);
    for (const secret of [
      'MIIEvQ',
      'aBcDeF',
      'bWVyY2hhbnQ6c2VjcmV0',
      'eyJhbGciOi',
      's3cret',
      'escaped',
      seed,
      'MIIEow',
    ]) {
      expect(scrubbed).not.toContain(secret);
    }
    expect(scrubbed).toContain('Basic [redacted]');
    expect(scrubbed).toContain('mongodb://pix:[redacted]@db:27017/pix');
  });

  it('leaves ordinary text as it is', () => {
    const text = 'connect ECONNREFUSED 127.0.0.1:443 at https://psp.example/v2/cob/abc (HTTP 500)';
    expect(scrubText(text)).toBe(text);
  });
});

describe('redact', () => {
  it('censors a secret by its name five levels deep and below, in objects and arrays', () => {
    const logged = {
      a: { b: { c: { d: { key: 'K5', passphrase: 'P5', e: { cert: 'C6', items: [{ seed: 'S8' }] } } } } },
      headers: { authorization: 'Basic abcdefgh', cookie: 'sid=1', accept: 'application/json' },
      kept: { route: '/psp/callbacks', count: 3, ok: true, at: new Date(0) },
    };
    expect(redact(logged)).toEqual({
      a: {
        b: { c: { d: { key: CENSORED, passphrase: CENSORED, e: { cert: CENSORED, items: [{ seed: CENSORED }] } } } },
      },
      headers: { authorization: CENSORED, cookie: CENSORED, accept: 'application/json' },
      kept: { route: '/psp/callbacks', count: 3, ok: true, at: '1970-01-01T00:00:00.000Z' },
    });
  });

  it('censors a whole object held under a secret name, and cuts cycles and depth', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 20; i++) deep = { deeper: deep };
    expect(redact({ https: { key: { pem: 'K' } }, cyclic })).toEqual({
      https: { key: CENSORED },
      cyclic: { name: 'loop', self: '[circular]' },
    });
    expect(JSON.stringify(redact(deep))).toContain('[too deep]');
  });

  it('walks what JSON would write of an object: a URL with a password is scrubbed', () => {
    expect(redact({ url: new URL('https://user:pw123@psp.example/token') })).toEqual({
      url: 'https://user:[redacted]@psp.example/token',
    });
  });
});

describe('errorFields', () => {
  it('tells an error by its type, message, stack, primitive fields and causes, never the objects it holds', () => {
    const root = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
    });
    const err = Object.assign(new Error('request failed', { cause: root }), {
      name: 'RequestError',
      code: 'ECONNREFUSED',
      options: { https: { key: PEM_KEY }, headers: { authorization: 'Basic bWFya2VyOm1hcmtlcg==' }, body: 'x' },
      response: { body: 'echo: Basic bWFya2VyOm1hcmtlcg==' },
      errorLabels: ['RetryableWriteError'],
      password: 'p',
      body: '{"secret":"in a body"}',
    });
    const fields = errorFields(err);
    expect(fields).toMatchObject({
      type: 'RequestError',
      message: 'request failed',
      code: 'ECONNREFUSED',
      errorLabels: ['RetryableWriteError'],
      password: CENSORED,
      cause: { type: 'Error', code: 'ECONNREFUSED', errno: -111, syscall: 'connect' },
    });
    expect(fields).not.toHaveProperty('options');
    expect(fields).not.toHaveProperty('response');
    expect(fields).not.toHaveProperty('body');
    expect(JSON.stringify(fields)).not.toMatch(/MIIEvQ|bWFya2Vy/);
  });

  it('tells the errors of an AggregateError', () => {
    const fields = errorFields(new AggregateError([new Error('one'), new Error('two')], 'both failed'));
    expect(fields.errors).toEqual([
      expect.objectContaining({ message: 'one' }),
      expect.objectContaining({ message: 'two' }),
    ]);
  });
});
