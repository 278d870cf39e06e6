import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, RUN_DIR } from '@pix/devstack';

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/**
 * What the working tree is compared with: BENCH_BASE when given (`none`: nothing, the working tree
 * alone); otherwise HEAD when the tree has uncommitted changes (what am I about to commit?), else
 * HEAD~1 (what did the last commit do?).
 */
export function baselineRef(): string | null {
  if (process.env.BENCH_BASE === 'none') return null;
  if (process.env.BENCH_BASE) return process.env.BENCH_BASE;
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  return dirty ? 'HEAD' : 'HEAD~1';
}

/**
 * The baseline's own infrastructure binaries (nats-server, its FerretDB), built by its own install
 * script: an older checkout may run another engine than this one (FerretDB 1.24 before issue 17),
 * so this checkout's .tools would start the wrong server. Builds are cached by Go or by version.
 */
function installInfra(dir: string): void {
  const script = path.join(dir, 'scripts', 'install-infra.sh');
  if (fs.existsSync(script)) execFileSync('bash', [script], { cwd: dir, stdio: 'inherit' });
}

/** A lockfile's packages, by their path under the checkout. */
function lockedPackages(dir: string): Record<string, { version?: string; link?: boolean; resolved?: string }> {
  return (
    JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; link?: boolean; resolved?: string }>;
    }
  ).packages;
}

/** A workspace's own copy of a package (another version than the root's): `[workspace, package]`. */
const WORKSPACE_PACKAGE = /^((?!node_modules\/).+?)\/node_modules\/((?:@[^/]+\/)?[^/]+)$/;

/**
 * Borrows this checkout's third-party packages. The workspace links (node_modules/@pix/*) are the
 * baseline's own, as its lockfile names them (a workspace since moved or removed included),
 * pointing at its own sources; a workspace's own copies (services/gateway/node_modules/lru-cache)
 * are linked where it has them.
 */
function linkDependencies(dir: string): void {
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@pix'), { recursive: true });
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry === '@pix') continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  for (const [key, entry] of Object.entries(lockedPackages(dir))) {
    if (!key.startsWith('node_modules/@pix/') || !entry.link || !entry.resolved) continue;
    fs.symlinkSync(path.join('..', '..', entry.resolved), path.join(dir, key));
  }
  for (const key of Object.keys(lockedPackages(ROOT))) {
    const [, workspace, name] = WORKSPACE_PACKAGE.exec(key) ?? [];
    if (!workspace || !name || !fs.existsSync(path.join(dir, workspace))) continue;
    const link = path.join(dir, workspace, 'node_modules', name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    if (!fs.existsSync(link)) fs.symlinkSync(path.join(ROOT, workspace, 'node_modules', name), link);
  }
}

/** The third-party packages a lockfile installs, as `path@version`, leaving out the workspaces' own entries. */
function thirdPartyPackages(dir: string): Set<string> {
  return new Set(
    Object.entries(lockedPackages(dir))
      .filter(([key, entry]) => key.includes('node_modules/') && !entry.link)
      .map(([key, entry]) => `${key}@${entry.version}`),
  );
}

/**
 * A built checkout of the baseline in .run/bench/baseline. node_modules is shared with this
 * checkout when it installs every third-party package the baseline needs at the same version (the
 * usual case: an older baseline lacks only what was added since), so only the build runs.
 */
export function prepareBaseline(ref: string): { dir: string; commit: string } {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = path.join(RUN_DIR, 'bench', 'baseline');
  if (fs.existsSync(dir)) removeBaseline(dir);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  git('worktree', 'add', '--detach', dir, commit);
  installInfra(dir);
  const installed = thirdPartyPackages(ROOT);
  if ([...thirdPartyPackages(dir)].every((entry) => installed.has(entry))) linkDependencies(dir);
  else execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, stdio: 'inherit' });
  execFileSync('npm', ['run', '-s', 'build'], { cwd: dir, stdio: 'inherit' });
  return { dir, commit };
}

export function removeBaseline(dir: string): void {
  execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
  fs.rmSync(dir, { recursive: true, force: true });
}
