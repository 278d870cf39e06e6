import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageOf, summarizeDir } from './cpu-profile';

// Burns 400 ms in alpha, then 400 ms in beta, and prints the monotonic microsecond between them.
// The clock is read once per 100,000 square roots: read on every one, its native frame
// (hrtimeBigInt) could outweigh burn's own time and top the ranking.
const BURNER = `
  const now = () => Number(process.hrtime.bigint() / 1000n);
  function burn(until) {
    let x = 0;
    while (now() < until) for (let i = 0; i < 100_000; i++) x += Math.sqrt(x + i);
    return x;
  }
  function alpha() { return burn(now() + 400_000); }
  function beta() { return burn(now() + 400_000); }
  alpha();
  process.stdout.write(String(now()));
  beta();
`;

describe('CPU profiles read over a window', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpu-profile-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("charges a window's samples to the function that ran then, on the clock of another process", () => {
    const start = Number(process.hrtime.bigint() / 1000n);
    const between = Number(
      execFileSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-e', BURNER], { encoding: 'utf8' }),
    );
    const end = Number(process.hrtime.bigint() / 1000n);
    const [first] = summarizeDir(dir, { fromUs: start, toUs: between });
    const [second] = summarizeDir(dir, { fromUs: between, toUs: end });
    const top = (ranking: [string, number][]) => ranking[0]?.[0] ?? '';
    expect(top(first?.byFunction ?? [])).toMatch(/^(alpha|burn|now) /);
    expect(first?.byFunction.some(([name]) => name.startsWith('beta '))).toBe(false);
    expect(second?.byFunction.some(([name]) => name.startsWith('alpha '))).toBe(false);
    // Each half is about 400 ms busy; the windows do not double count.
    expect(first?.busyMs).toBeGreaterThan(250);
    expect(second?.busyMs).toBeGreaterThan(250);
    expect((first?.busyMs ?? 0) + (second?.busyMs ?? 0)).toBeLessThan(1000);
  });

  it('names the package a frame belongs to', () => {
    expect(packageOf('file:///w/node_modules/@nats-io/nats-core/lib/nats.js')).toBe('@nats-io/nats-core');
    expect(packageOf('file:///w/node_modules/a/node_modules/got/dist/index.js')).toBe('got');
    expect(packageOf('node:internal/streams/writable')).toBe('node:internal');
    expect(packageOf('file:///w/libs/messaging/dist/rpc.js')).toBe('libs/messaging');
    expect(packageOf('')).toBe('(V8 and native)');
  });
});
