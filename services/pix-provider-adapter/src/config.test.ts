import { unitFactKeys } from '../../../tests/support/unit-env';
import { adapterEnv } from './config';

/** A connection to a PSP over API Pix: what every deployment gives, whichever PSP it speaks to. */
const apipix = {
  FACT_SIGNING_KEY: unitFactKeys.FACT_SIGNING_KEY,
  PIX_PROVIDER: 'apipix',
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

const issues = (env: Record<string, string>) => {
  const parsed = adapterEnv.safeParse(env);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

const without = (name: keyof typeof apipix) => {
  const env: Record<string, string> = { ...apipix };
  delete env[name];
  return env;
};

describe("the adapter's PSP connection", () => {
  it('is complete in both modes: the sandbox speaks API Pix to the simulator as apipix does to a PSP', () => {
    expect(issues(apipix)).toEqual([]);
    for (const name of ['PIX_API_URL', 'PIX_TLS_CERT_FILE', 'CALLBACK_CLIENT_CA_FILE', 'PIX_RECEIVER_KEY'] as const) {
      expect(issues({ ...without(name), PIX_PROVIDER: 'sandbox', PSP_BACKOFFICE_URL: 'http://psp:8082' })).toEqual([
        `${name}: Invalid input: expected string, received undefined`,
      ]);
    }
  });

  it('has a client secret with no default, and the refusal names it', () => {
    expect(issues(without('PIX_CLIENT_SECRET'))).toEqual([
      'PIX_CLIENT_SECRET: is required: a secret guarding a door has no default',
    ]);
  });

  it("needs the simulator's back office in the sandbox only", () => {
    expect(issues({ ...apipix, PIX_PROVIDER: 'sandbox' })).toEqual([
      'PSP_BACKOFFICE_URL: PSP_BACKOFFICE_URL is required when PIX_PROVIDER=sandbox',
    ]);
    expect(adapterEnv.parse(apipix).PSP_BACKOFFICE_URL).toBeUndefined();
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
    const env = { ...apipix, PSP_CALLBACK_PINS: 'sha256/tooshort=, cn:psp' };
    expect(issues(env)).toEqual([
      'PSP_CALLBACK_PINS: not a pin (sha256/<base64>, dns:<name> or cn:<name>): sha256/tooshort=',
    ]);
  });

  it('are read as a list', () => {
    const env = { ...apipix, PSP_CALLBACK_PINS: `${apipix.PSP_CALLBACK_PINS}, dns:callbacks.psp.example` };
    expect(adapterEnv.parse(env).PSP_CALLBACK_PINS).toEqual([
      { kind: 'sha256', value: 'qlujXETChjRn/MSVpgTYVREGbIQA4AdtWDl5mPn6CKg=' },
      { kind: 'dns', value: 'callbacks.psp.example' },
    ]);
  });
});
