import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, RUN_DIR } from '@pix/devstack';

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/**
 * What the working tree is compared with: BENCH_BASE when given; otherwise HEAD when the tree has
 * uncommitted changes (what am I about to commit?), else HEAD~1 (what did the last commit do?).
 */
export function baselineRef(): string {
  if (process.env.BENCH_BASE) return process.env.BENCH_BASE;
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  return dirty ? 'HEAD' : 'HEAD~1';
}

/**
 * Borrows this checkout's third-party packages. The workspace links (node_modules/@pix/*) are
 * relative, so they are recreated inside the baseline to point at the baseline's own sources.
 */
function linkDependencies(dir: string): void {
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@pix'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@pix') continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules', '@pix'))) {
    const target = fs.readlinkSync(path.join(ROOT, 'node_modules', '@pix', entry));
    if (fs.existsSync(path.resolve(modules, '@pix', target))) fs.symlinkSync(target, path.join(modules, '@pix', entry));
  }
}

/**
 * A built checkout of the baseline in .run/bench/baseline. node_modules is shared with this
 * checkout when both lockfiles are equal (the usual case), so only TypeScript is compiled.
 */
export function prepareBaseline(ref: string): { dir: string; commit: string } {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = path.join(RUN_DIR, 'bench', 'baseline');
  if (fs.existsSync(dir)) {
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
    fs.rmSync(dir, { recursive: true, force: true });
  }
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  git('worktree', 'add', '--detach', dir, commit);
  const sameLock =
    fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8') ===
    fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
  if (sameLock) linkDependencies(dir);
  else execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, stdio: 'inherit' });
  execFileSync('npx', ['tsc', '-b'], { cwd: dir, stdio: 'inherit' });
  return { dir, commit };
}
