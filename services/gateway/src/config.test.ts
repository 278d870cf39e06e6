import { randomBytes } from 'node:crypto';
import { unitFactKeys } from '../../../tests/support/unit-env';
import { gatewayEnv } from './config';

/** The key every deployment gives, beside the settings each case is about. */
const facts = { PAYMENT_FACTS_PUBLIC_KEYS: unitFactKeys.PAYMENT_FACTS_PUBLIC_KEYS };
const parse = (env: Record<string, string>) => gatewayEnv.parse({ ...facts, ...env });
const issues = (env: Record<string, string>) => {
  const parsed = gatewayEnv.safeParse({ ...facts, ...env });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const keys = `k1:${randomBytes(32).toString('base64')}`;
const session = 'x'.repeat(32);

describe('the secrets a deployment must be given', () => {
  it('refuses to start without either, naming each, whatever else is set (no development default)', () => {
    const required = 'is required: a secret guarding a door has no default';
    const environments: Record<string, string>[] = [
      {},
      { PUBLIC_BASE_URL: 'http://127.0.0.1:8080' },
      { PUBLIC_BASE_URL: 'https://api.example.com' },
      { MONGO_URL: 'mongodb://db:27017/pix' },
    ];
    for (const env of environments) {
      expect(issues(env)).toEqual([`DASHBOARD_SESSION_SECRET: ${required}`, `SECRETS_KEYS: ${required}`]);
    }
    expect(issues({ SECRETS_KEYS: keys })).toEqual([`DASHBOARD_SESSION_SECRET: ${required}`]);
    expect(issues({ DASHBOARD_SESSION_SECRET: session })).toEqual([`SECRETS_KEYS: ${required}`]);
  });

  it('takes them as given', () => {
    const parsed = parse({
      PUBLIC_BASE_URL: 'https://api.example.com',
      DASHBOARD_SESSION_SECRET: session,
      SECRETS_KEYS: keys,
    });
    expect(parsed.DASHBOARD_SESSION_SECRET).toBe(session);
    expect(parsed.SECRETS_KEYS.map((k) => k.kid)).toEqual(['k1']);
  });

  it('refuses malformed SECRETS_KEYS with the reason, and never the key', () => {
    const found = issues({ DASHBOARD_SESSION_SECRET: session, SECRETS_KEYS: 'k1:c2hvcnQ=' });
    expect(found).toEqual(['SECRETS_KEYS: key k1: must be 32 bytes in base64, not 5']);
  });

  it('refuses a session secret shorter than 32 characters', () => {
    expect(issues({ DASHBOARD_SESSION_SECRET: 'x'.repeat(31), SECRETS_KEYS: keys })).toEqual([
      'DASHBOARD_SESSION_SECRET: Too small: expected string to have >=32 characters',
    ]);
  });
});

describe('the door settings', () => {
  it('counts 100 refused tokens a minute per address and 1000 per replica by default, and trusts no proxy', () => {
    const parsed = parse({ DASHBOARD_SESSION_SECRET: session, SECRETS_KEYS: keys });
    expect(parsed).toMatchObject({
      AUTH_FAILURE_LIMIT: 100,
      AUTH_FAILURE_REPLICA_LIMIT: 1000,
      AUTH_FAILURE_WINDOW: 60_000,
      AUTH_NEGATIVE_CACHE_TTL: 60_000,
      TRUST_PROXY: 0,
      PUBLIC_RATE_LIMIT_REQUESTS: 300,
      PUBLIC_RATE_LIMIT_WINDOW: 60_000,
    });
  });
});
