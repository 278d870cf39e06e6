import { unitFactKeys } from '../../../tests/support/unit-env';
import { adapterEnv } from './config';

/** What every deployment gives, beside the settings each case is about. */
const callbackSecret = { PSP_CALLBACK_SECRET: 'a-callback-secret-of-the-test' };
const facts = { FACT_SIGNING_KEY: unitFactKeys.FACT_SIGNING_KEY, ...callbackSecret };

const apipix = {
  ...facts,
  PIX_PROVIDER: 'apipix',
  PIX_API_URL: 'https://psp.example.com/v2',
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

describe("the adapter's PSP client secret", () => {
  it('is required with a real PSP (apipix), and the refusal names it', () => {
    expect(issues(apipix)).toEqual(['PIX_CLIENT_SECRET: PIX_CLIENT_SECRET is required when PIX_PROVIDER=apipix']);
  });

  it('is taken as given with apipix', () => {
    expect(adapterEnv.parse({ ...apipix, PIX_CLIENT_SECRET: 's3cret' }).PIX_CLIENT_SECRET).toBe('s3cret');
  });

  it('has a default with the sandbox PSP only', () => {
    expect(adapterEnv.parse(facts).PIX_CLIENT_SECRET).toBe('sandbox-client-secret');
  });
});

describe('the callback secret', () => {
  it('has no default: a deployment without it refuses to start, and the refusal names it', () => {
    expect(issues({ FACT_SIGNING_KEY: facts.FACT_SIGNING_KEY })).toEqual([
      'PSP_CALLBACK_SECRET: is required: a secret guarding a door has no default',
    ]);
    expect(issues({ FACT_SIGNING_KEY: facts.FACT_SIGNING_KEY, PSP_CALLBACK_SECRET: 'short' })).toEqual([
      'PSP_CALLBACK_SECRET: Too small: expected string to have >=16 characters',
    ]);
    expect(adapterEnv.parse(facts).PSP_CALLBACK_SECRET).toBe(callbackSecret.PSP_CALLBACK_SECRET);
  });
});

describe("the PSP's callback pins", () => {
  const withSecret = { ...apipix, PIX_CLIENT_SECRET: 's3cret' };

  it('are required with a real PSP (apipix), and the refusal names them', () => {
    for (const pins of [undefined, '', ' , ']) {
      const env: Record<string, string> = { ...withSecret };
      if (pins === undefined) delete env.PSP_CALLBACK_PINS;
      else env.PSP_CALLBACK_PINS = pins;
      expect(issues(env)).toEqual(['PSP_CALLBACK_PINS: PSP_CALLBACK_PINS is required when PIX_PROVIDER=apipix']);
    }
  });

  it('refuse to start on an entry that is no pin, naming it', () => {
    const env = { ...withSecret, PSP_CALLBACK_PINS: 'sha256/tooshort=, cn:psp' };
    expect(issues(env)).toEqual([
      'PSP_CALLBACK_PINS: not a pin (sha256/<base64>, dns:<name> or cn:<name>): sha256/tooshort=',
    ]);
  });

  it('are read as a list', () => {
    const env = { ...withSecret, PSP_CALLBACK_PINS: `${apipix.PSP_CALLBACK_PINS}, dns:callbacks.psp.example` };
    expect(adapterEnv.parse(env).PSP_CALLBACK_PINS).toEqual([
      { kind: 'sha256', value: 'qlujXETChjRn/MSVpgTYVREGbIQA4AdtWDl5mPn6CKg=' },
      { kind: 'dns', value: 'callbacks.psp.example' },
    ]);
  });

  it('are not needed with the sandbox PSP', () => {
    expect(adapterEnv.parse(facts).PSP_CALLBACK_PINS).toEqual([]);
  });
});
