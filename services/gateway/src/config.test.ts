import { randomBytes } from 'node:crypto';
import { testFactKeys } from '../../../libs/config/src/testing/fact-keys';
import { gatewayEnv } from './config';

/** The key every deployment gives, beside the settings each case is about. */
const facts = { PAYMENT_FACTS_PUBLIC_KEYS: testFactKeys.PAYMENT_FACTS_PUBLIC_KEYS };
const parse = (env: Record<string, string>) => gatewayEnv.parse({ ...facts, ...env });
const issues = (env: Record<string, string>) => {
  const parsed = gatewayEnv.safeParse({ ...facts, ...env });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const keys = `k1:${randomBytes(32).toString('base64')}`;
const session = 'x'.repeat(32);

describe('the secrets a deployment must be given', () => {
  it('refuses to start behind https without either, naming each', () => {
    expect(issues({ PUBLIC_BASE_URL: 'https://api.example.com' })).toEqual([
      'DASHBOARD_SESSION_SECRET: DASHBOARD_SESSION_SECRET is required when PUBLIC_BASE_URL is https',
      'SECRETS_KEYS: SECRETS_KEYS is required when PUBLIC_BASE_URL is https',
    ]);
    expect(issues({ PUBLIC_BASE_URL: 'https://api.example.com', SECRETS_KEYS: keys })).toEqual([
      'DASHBOARD_SESSION_SECRET: DASHBOARD_SESSION_SECRET is required when PUBLIC_BASE_URL is https',
    ]);
    expect(issues({ PUBLIC_BASE_URL: 'https://api.example.com', DASHBOARD_SESSION_SECRET: session })).toEqual([
      'SECRETS_KEYS: SECRETS_KEYS is required when PUBLIC_BASE_URL is https',
    ]);
  });

  it('refuses to start with a real PSP without either, even on http', () => {
    expect(issues({ PIX_PROVIDER: 'apipix', PUBLIC_BASE_URL: 'http://127.0.0.1:8080' })).toEqual([
      'DASHBOARD_SESSION_SECRET: DASHBOARD_SESSION_SECRET is required when PIX_PROVIDER=apipix',
      'SECRETS_KEYS: SECRETS_KEYS is required when PIX_PROVIDER=apipix',
    ]);
  });

  it('takes them as given behind https', () => {
    const parsed = parse({
      PUBLIC_BASE_URL: 'https://api.example.com',
      DASHBOARD_SESSION_SECRET: session,
      SECRETS_KEYS: keys,
    });
    expect(parsed.DASHBOARD_SESSION_SECRET).toBe(session);
    expect(parsed.SECRETS_KEYS.map((k) => k.kid)).toEqual(['k1']);
  });

  it('refuses malformed SECRETS_KEYS with the reason, and never the key', () => {
    const found = issues({ SECRETS_KEYS: 'k1:c2hvcnQ=' });
    expect(found).toEqual(['SECRETS_KEYS: key k1: must be 32 bytes in base64, not 5']);
  });

  it('may leave both out on http with the sandbox (development): derived from MONGO_URL, the same on every replica', () => {
    const env = { PUBLIC_BASE_URL: 'http://127.0.0.1:8080', MONGO_URL: 'mongodb://db:27017/pix' };
    const one = parse(env);
    expect(one.DASHBOARD_SESSION_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(one.SECRETS_KEYS).toEqual([{ kid: 'dev', key: expect.any(Buffer) }]);
    expect(one.SECRETS_KEYS[0]?.key.length).toBe(32);
    const again = parse(env);
    expect(again.DASHBOARD_SESSION_SECRET).toBe(one.DASHBOARD_SESSION_SECRET);
    expect(again.SECRETS_KEYS[0]?.key.equals(one.SECRETS_KEYS[0]!.key)).toBe(true);
    const other = parse({ ...env, MONGO_URL: 'mongodb://other:27017/pix' });
    expect(other.DASHBOARD_SESSION_SECRET).not.toBe(one.DASHBOARD_SESSION_SECRET);
  });
});

describe('the door settings', () => {
  it('counts 100 refused tokens a minute per address by default, and trusts no proxy', () => {
    const parsed = parse({});
    expect(parsed).toMatchObject({
      AUTH_FAILURE_LIMIT: 100,
      AUTH_FAILURE_WINDOW: 60_000,
      AUTH_NEGATIVE_CACHE_TTL: 60_000,
      TRUST_PROXY: 0,
    });
  });
});
