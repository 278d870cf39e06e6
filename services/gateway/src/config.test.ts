import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Loads the gateway's configuration in a process of its own, as the service does at start. */
function loadWith(env: Record<string, string>) {
  const config = path.join(__dirname, '..', 'dist', 'config.js');
  const base = { PATH: process.env.PATH ?? '' };
  return spawnSync(process.execPath, ['-e', `require(${JSON.stringify(config)})`], {
    env: { ...base, ...env },
    encoding: 'utf8',
  });
}

describe('the dashboard session secret', () => {
  it('is required behind https: a derived key could be forged', () => {
    const run = loadWith({ PUBLIC_BASE_URL: 'https://api.example.com' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('DASHBOARD_SESSION_SECRET is required when PUBLIC_BASE_URL is https');
  });

  it('is taken as given behind https', () => {
    const run = loadWith({ PUBLIC_BASE_URL: 'https://api.example.com', DASHBOARD_SESSION_SECRET: 'x'.repeat(32) });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('may be left out on http (development), derived from MONGO_URL', () => {
    const run = loadWith({ PUBLIC_BASE_URL: 'http://127.0.0.1:8080' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
