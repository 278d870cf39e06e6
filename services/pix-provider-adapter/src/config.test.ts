import { unitFactKeys } from '../../../tests/support/unit-env';
import { adapterEnv } from './config';
import { connectionSettings } from './psp-connection';

/** The test connection: what every deployment gives, whichever PSP it speaks to. */
const testConnection = {
  FACT_SIGNING_KEY: unitFactKeys.FACT_SIGNING_KEY,
  PIX_API_URL: 'https://psp.example.com/v2',
  PIX_CLIENT_ID: 'platform',
  PIX_CLIENT_SECRET: 's3cret-of-the-psp',
  PIX_RECEIVER_KEY: 'recebimentos@loja.example',
  PIX_TLS_CERT_FILE: '/etc/pix/client.crt',
  PIX_TLS_KEY_FILE: '/etc/pix/client.key',
  PIX_TLS_CA_FILE: '/etc/pix/psp-ca.crt',
  CALLBACK_TLS_CERT_FILE: '/etc/pix/callback.crt',
  CALLBACK_TLS_KEY_FILE: '/etc/pix/callback.key',
  CALLBACK_CLIENT_CA_FILE: '/etc/pix/callback-ca.crt',
  PSP_CALLBACK_PINS: 'sha256/qlujXETChjRn/MSVpgTYVREGbIQA4AdtWDl5mPn6CKg=',
};

/** A live connection beside it: the same parts under LIVE_PSP_*. */
const live = {
  LIVE_PSP_API_URL: 'https://pix.psp.example/api/v2',
  LIVE_PSP_CLIENT_ID: 'loja-live',
  LIVE_PSP_CLIENT_SECRET: 'live-s3cret-of-the-psp',
  LIVE_PSP_RECEIVER_KEY: 'pix@loja.example',
  LIVE_PSP_TLS_CERT_FILE: '/etc/pix/live/client.crt',
  LIVE_PSP_TLS_KEY_FILE: '/etc/pix/live/client.key',
  LIVE_PSP_TLS_CA_FILE: '/etc/pix/live/psp-ca.crt',
  LIVE_PSP_CALLBACK_TLS_CERT_FILE: '/etc/pix/live/callback.crt',
  LIVE_PSP_CALLBACK_TLS_KEY_FILE: '/etc/pix/live/callback.key',
  LIVE_PSP_CALLBACK_CLIENT_CA_FILE: '/etc/pix/live/callback-ca.crt',
  LIVE_PSP_CALLBACK_PINS: 'dns:callbacks.psp.example',
};

const issues = (env: Record<string, string>) => {
  const parsed = adapterEnv.safeParse(env);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

const without = (name: keyof typeof testConnection) => {
  const env: Record<string, string> = { ...testConnection };
  delete env[name];
  return env;
};

describe("the adapter's PSP connections", () => {
  it('the test connection is complete, whichever PSP it speaks to (the simulator, a PSP homologation)', () => {
    expect(issues(testConnection)).toEqual([]);
    expect(issues({ ...testConnection, PSP_BACKOFFICE_URL: 'http://psp:8082' })).toEqual([]);
    for (const name of ['PIX_API_URL', 'PIX_TLS_CERT_FILE', 'CALLBACK_CLIENT_CA_FILE', 'PIX_RECEIVER_KEY'] as const) {
      expect(issues(without(name))).toEqual([`${name}: Invalid input: expected string, received undefined`]);
    }
  });

  it('has a client secret with no default, and the refusal names it', () => {
    expect(issues(without('PIX_CLIENT_SECRET'))).toEqual([
      'PIX_CLIENT_SECRET: is required: a secret guarding a door has no default',
    ]);
  });

  it('without LIVE_PSP_API_URL there is the test connection alone; with it, both, each its own', () => {
    expect(connectionSettings(adapterEnv.parse(testConnection)).map((c) => c.name)).toEqual(['test']);
    const [test, second] = connectionSettings(adapterEnv.parse({ ...testConnection, ...live }));
    expect(test).toMatchObject({ name: 'test', livemode: false, clientId: 'platform', callbackPort: 8081 });
    expect(second).toMatchObject({
      name: 'live',
      livemode: true,
      apiUrl: live.LIVE_PSP_API_URL,
      tokenUrl: 'https://pix.psp.example/oauth/token',
      clientId: 'loja-live',
      clientSecret: live.LIVE_PSP_CLIENT_SECRET,
      receiverKey: 'pix@loja.example',
      tls: {
        certFile: '/etc/pix/live/client.crt',
        keyFile: '/etc/pix/live/client.key',
        caFile: '/etc/pix/live/psp-ca.crt',
      },
      callbackUrl: undefined,
      callbackPort: 8082,
      callbackPins: [{ kind: 'dns', value: 'callbacks.psp.example' }],
    });
  });

  it("reads the test PSP's infractions by default, the live one's only when told its PSP reports them", () => {
    const [test, second] = connectionSettings(adapterEnv.parse({ ...testConnection, ...live }));
    expect([test?.infractions, second?.infractions]).toEqual([true, false]);
    const told = connectionSettings(
      adapterEnv.parse({ ...testConnection, ...live, PIX_INFRACTIONS: 'none', LIVE_PSP_INFRACTIONS: 'efi' }),
    );
    expect(told.map((c) => c.infractions)).toEqual([false, true]);
    expect(issues({ ...testConnection, PIX_INFRACTIONS: 'payzu' })[0]).toMatch(/^PIX_INFRACTIONS: /);
  });

  it("sizes the live connection's calls on their own, each unset taken from the test connection's", () => {
    const calls = (env: Record<string, string>) => connectionSettings(adapterEnv.parse(env)).map((c) => c.calls);
    expect(calls({ ...testConnection, ...live })).toEqual([
      { timeoutMs: 5000, retryLimit: 3, maxConnections: 64 },
      { timeoutMs: 5000, retryLimit: 3, maxConnections: 64 },
    ]);
    const test = { PIX_TIMEOUT: '2s', PIX_RETRY_LIMIT: '1', PIX_MAX_CONNECTIONS: '16' };
    expect(calls({ ...testConnection, ...live, ...test, LIVE_PSP_MAX_CONNECTIONS: '200' })).toEqual([
      { timeoutMs: 2000, retryLimit: 1, maxConnections: 16 },
      { timeoutMs: 2000, retryLimit: 1, maxConnections: 200 },
    ]);
    expect(calls({ ...testConnection, ...live, LIVE_PSP_TIMEOUT: '10s', LIVE_PSP_RETRY_LIMIT: '0' })[1]).toEqual({
      timeoutMs: 10_000,
      retryLimit: 0,
      maxConnections: 64,
    });
    expect(issues({ ...testConnection, ...live, LIVE_PSP_TIMEOUT: 'soon' })).toEqual([
      'LIVE_PSP_TIMEOUT: not a duration (e.g. 30s, 5m, 2h): soon',
    ]);
    for (const [name, value] of [
      ['LIVE_PSP_MAX_CONNECTIONS', '0'],
      ['LIVE_PSP_RETRY_LIMIT', '11'],
    ]) {
      expect(issues({ ...testConnection, ...live, [name as string]: value as string })[0]).toMatch(
        new RegExp(`^${name}: `),
      );
    }
  });

  it('keeps 64 connections to a PSP at most unless told, and refuses a bound that is none', () => {
    expect(adapterEnv.parse(testConnection).PIX_MAX_CONNECTIONS).toBe(64);
    expect(adapterEnv.parse({ ...testConnection, PIX_MAX_CONNECTIONS: '8' }).PIX_MAX_CONNECTIONS).toBe(8);
    for (const bound of ['0', '-1', '2.5', 'many']) {
      expect(issues({ ...testConnection, PIX_MAX_CONNECTIONS: bound })[0]).toMatch(/^PIX_MAX_CONNECTIONS: /);
    }
  });

  it('a live connection is whole or refused, naming each missing part; its callbacks on a port of their own', () => {
    const partial: Record<string, string> = { ...testConnection, ...live };
    delete partial.LIVE_PSP_CLIENT_SECRET;
    delete partial.LIVE_PSP_CALLBACK_PINS;
    expect(issues(partial)).toEqual([
      'LIVE_PSP_CLIENT_SECRET: LIVE_PSP_CLIENT_SECRET is required with LIVE_PSP_API_URL',
      'LIVE_PSP_CALLBACK_PINS: LIVE_PSP_CALLBACK_PINS is required with LIVE_PSP_API_URL',
    ]);
    expect(issues({ ...testConnection, ...live, LIVE_PSP_CALLBACK_PORT: '8081' })).toEqual([
      'LIVE_PSP_CALLBACK_PORT: LIVE_PSP_CALLBACK_PORT must differ from HTTP_PORT: each connection has its callback server',
    ]);
  });
});

describe("the PSP's callback pins", () => {
  it('are required, and the refusal names them', () => {
    for (const pins of [undefined, '', ' , ']) {
      const env = without('PSP_CALLBACK_PINS');
      if (pins !== undefined) env.PSP_CALLBACK_PINS = pins;
      expect(issues(env)).toEqual(['PSP_CALLBACK_PINS: PSP_CALLBACK_PINS is required']);
    }
  });

  it('refuse to start on an entry that is no pin, naming it', () => {
    const env = { ...testConnection, PSP_CALLBACK_PINS: 'sha256/tooshort=, cn:psp' };
    expect(issues(env)).toEqual([
      'PSP_CALLBACK_PINS: not a pin (sha256/<base64>, dns:<name> or cn:<name>): sha256/tooshort=',
    ]);
  });

  it('are read as a list', () => {
    const env = {
      ...testConnection,
      PSP_CALLBACK_PINS: `${testConnection.PSP_CALLBACK_PINS}, dns:callbacks.psp.example`,
    };
    expect(adapterEnv.parse(env).PSP_CALLBACK_PINS).toEqual([
      { kind: 'sha256', value: 'qlujXETChjRn/MSVpgTYVREGbIQA4AdtWDl5mPn6CKg=' },
      { kind: 'dns', value: 'callbacks.psp.example' },
    ]);
  });
});
