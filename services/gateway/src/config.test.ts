import { gatewayEnv } from './config';

describe('the dashboard session secret', () => {
  const issues = (env: Record<string, string>) => {
    const parsed = gatewayEnv.safeParse(env);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('is required behind https: a derived key could be forged', () => {
    expect(issues({ PUBLIC_BASE_URL: 'https://api.example.com' })).toEqual([
      'DASHBOARD_SESSION_SECRET: DASHBOARD_SESSION_SECRET is required when PUBLIC_BASE_URL is https',
    ]);
  });

  it('is taken as given behind https', () => {
    const secret = 'x'.repeat(32);
    const parsed = gatewayEnv.parse({ PUBLIC_BASE_URL: 'https://api.example.com', DASHBOARD_SESSION_SECRET: secret });
    expect(parsed.DASHBOARD_SESSION_SECRET).toBe(secret);
  });

  it('may be left out on http (development): derived from MONGO_URL, the same on every replica', () => {
    const env = { PUBLIC_BASE_URL: 'http://127.0.0.1:8080', MONGO_URL: 'mongodb://db:27017/pix' };
    const one = gatewayEnv.parse(env).DASHBOARD_SESSION_SECRET;
    expect(one.length).toBeGreaterThanOrEqual(32);
    expect(gatewayEnv.parse(env).DASHBOARD_SESSION_SECRET).toBe(one);
    expect(gatewayEnv.parse({ ...env, MONGO_URL: 'mongodb://other:27017/pix' }).DASHBOARD_SESSION_SECRET).not.toBe(one);
  });
});
