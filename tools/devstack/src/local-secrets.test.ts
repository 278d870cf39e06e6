import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadLocalSecrets, readLocalSecrets } from './local-secrets';

describe("a stack's local secrets", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'local-secrets-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('are generated once, every door secret among them, readable by this user only', () => {
    const file = path.join(dir, 'secrets', 'local-secrets.json');
    const first = loadLocalSecrets(file);
    expect(first.created).toBe(true);
    expect(first.secrets.pspClientSecret.length).toBeGreaterThanOrEqual(16);
    expect(first.secrets.dashboardSessionSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.secrets.secretsKeys).toMatch(/^local1:/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadLocalSecrets(file)).toEqual({ secrets: first.secrets, created: false });
  });

  it('gain a secret added since the stack was made, keeping every one it had', () => {
    const file = path.join(dir, 'local-secrets.json');
    const { secrets } = loadLocalSecrets(file);
    const { pspClientSecret: _added, ...older } = secrets;
    fs.writeFileSync(file, JSON.stringify(older), { mode: 0o600 });

    const loaded = loadLocalSecrets(file);
    expect(loaded.created).toBe(false);
    expect(loaded.secrets).toEqual({ ...older, pspClientSecret: expect.any(String) });
    // Written back, so the stack's later readers (a replica, a restart) see the same one.
    expect(readLocalSecrets(file)).toEqual(loaded.secrets);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
